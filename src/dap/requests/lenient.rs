//! `deserialize_with` helpers that read a response field the way
//! `body.get(k).and_then(Value::as_…)` reads it: a field of another type reads as absent (or
//! the default), never as an error, so one odd field never costs the rest of a body.
//!
//! Each helper is a visitor over the field as the deserializer gives it: nothing is first
//! copied into a `serde_json::Value` (a stop reads every frame's and every local's fields
//! through here; `scripts/callgrind-roundtrip` counts what that costs per round trip).
//! The readings are the ones `T::deserialize(&value)` gives, number ranges included; the
//! tests in `requests/tests/bodies.rs` pin them.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{DeserializeOwned, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// A field type read leniently: each `from_*` is the reading of one JSON kind, the default
/// for the kinds it does not list (`null`, floats and objects always read as the default).
pub trait Lenient: Default + Sized {
    fn from_str(_s: &str) -> Self {
        Self::default()
    }
    fn from_string(s: String) -> Self {
        Self::from_str(&s)
    }
    fn from_u64(_n: u64) -> Self {
        Self::default()
    }
    fn from_i64(_n: i64) -> Self {
        Self::default()
    }
    fn from_bool(_b: bool) -> Self {
        Self::default()
    }
    fn from_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Self::default())
    }
}

impl Lenient for Option<String> {
    fn from_str(s: &str) -> Self {
        Some(s.to_owned())
    }
    fn from_string(s: String) -> Self {
        Some(s)
    }
}

impl Lenient for Option<i64> {
    fn from_u64(n: u64) -> Self {
        i64::try_from(n).ok()
    }
    fn from_i64(n: i64) -> Self {
        Some(n)
    }
}

impl Lenient for Option<u64> {
    fn from_u64(n: u64) -> Self {
        Some(n)
    }
    fn from_i64(n: i64) -> Self {
        u64::try_from(n).ok()
    }
}

impl Lenient for Option<u32> {
    fn from_u64(n: u64) -> Self {
        u32::try_from(n).ok()
    }
    fn from_i64(n: i64) -> Self {
        u32::try_from(n).ok()
    }
}

impl Lenient for bool {
    fn from_bool(b: bool) -> Self {
        b
    }
}

impl Lenient for Option<bool> {
    fn from_bool(b: bool) -> Self {
        Some(b)
    }
}

/// A list of strings, or absent when any entry is not a string (as `Vec<String>` reads).
impl Lenient for Option<Vec<String>> {
    fn from_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut out = Some(Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096)));
        while let Some(Leniently(s)) = seq.next_element::<Leniently<Option<String>>>()? {
            match (&mut out, s) {
                (Some(list), Some(s)) => list.push(s),
                _ => out = None,
            }
        }
        Ok(out)
    }
}

/// The field as `T`, or `T::default()` (`None` for an `Option`) when it has another type.
pub fn value<'de, D: Deserializer<'de>, T: Lenient>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(LenientVisitor(PhantomData))
}

/// An object field read as the record `T` (whose fields are all lenient), `None` when it is
/// not an object.
pub fn record<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    d.deserialize_any(RecordVisitor(PhantomData))
}

/// A list whose entries are read one by one (an entry that is not an object reads as
/// `T::default()`, so indexes still match the request's); empty when it is not a list.
pub fn items<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(d: D) -> Result<Vec<T>, D::Error> {
    Ok(opt_items(d)?.unwrap_or_default())
}

/// [`items`], but `None` when the field is not a list (where that differs from an empty one).
pub fn opt_items<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(d: D) -> Result<Option<Vec<T>>, D::Error> {
    d.deserialize_any(ItemsVisitor(PhantomData))
}

/// A value read with [`Lenient`], for the entries of a list.
struct Leniently<T>(T);

impl<'de, T: Lenient> Deserialize<'de> for Leniently<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        value(d).map(Leniently)
    }
}

/// One entry of an [`items`] list: the record when it is an object, else the default.
struct Entry<T>(T);

impl<'de, T: DeserializeOwned + Default> Deserialize<'de> for Entry<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Entry(record(d)?.unwrap_or_default()))
    }
}

/// Drains what a visitor does not read, so the deserializer stays in step.
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

struct LenientVisitor<T>(PhantomData<T>);

impl<'de, T: Lenient> Visitor<'de> for LenientVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<T, E> {
        Ok(T::from_bool(b))
    }
    fn visit_u64<E>(self, n: u64) -> Result<T, E> {
        Ok(T::from_u64(n))
    }
    fn visit_i64<E>(self, n: i64) -> Result<T, E> {
        Ok(T::from_i64(n))
    }
    fn visit_f64<E>(self, _: f64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_str<E>(self, s: &str) -> Result<T, E> {
        Ok(T::from_str(s))
    }
    fn visit_string<E>(self, s: String) -> Result<T, E> {
        Ok(T::from_string(s))
    }
    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_none<E>(self) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::from_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        drain_map(map).map(|()| T::default())
    }
}

/// The `visit_*` of every JSON kind that is not a list or an object, each reading as `$none`
/// (for the visitors below that read only lists or objects).
macro_rules! scalars_read_as {
    ($none:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
    };
}

struct RecordVisitor<T>(PhantomData<T>);

impl<'de, T: DeserializeOwned> Visitor<'de> for RecordVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    scalars_read_as!(None);
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Option<T>, A::Error> {
        drain_seq(seq).map(|()| None)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<T>, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Some)
    }
}

struct ItemsVisitor<T>(PhantomData<T>);

impl<'de, T: DeserializeOwned + Default> Visitor<'de> for ItemsVisitor<T> {
    type Value = Option<Vec<T>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    scalars_read_as!(None);
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // The hint is the adapter's own count; capped so a lying one cannot reserve gigabytes.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(Entry(t)) = seq.next_element::<Entry<T>>()? {
            out.push(t);
        }
        Ok(Some(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        drain_map(map).map(|()| None)
    }
}

/// A [`super::Loose`] field's type: the value when the JSON has exactly this type.
pub trait Exact: Sized {
    fn exact_str(_s: &str) -> Option<Self> {
        None
    }
    fn exact_u64(_n: u64) -> Option<Self> {
        None
    }
    fn exact_i64(_n: i64) -> Option<Self> {
        None
    }
}

impl Exact for String {
    fn exact_str(s: &str) -> Option<Self> {
        Some(s.to_owned())
    }
}

impl Exact for i64 {
    fn exact_u64(n: u64) -> Option<Self> {
        i64::try_from(n).ok()
    }
    fn exact_i64(n: i64) -> Option<Self> {
        Some(n)
    }
}

impl Exact for u64 {
    fn exact_u64(n: u64) -> Option<Self> {
        Some(n)
    }
    fn exact_i64(n: i64) -> Option<Self> {
        u64::try_from(n).ok()
    }
}

/// Reads a [`super::Loose`]: typed when the JSON has `T`'s type, else kept verbatim.
pub(super) struct LooseVisitor<T>(pub(super) PhantomData<T>);

impl<'de, T: Exact> Visitor<'de> for LooseVisitor<T> {
    type Value = super::Loose<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(super::Loose::Other(Value::Bool(b)))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
        Ok(T::exact_u64(n).map_or(super::Loose::Other(Value::from(n)), super::Loose::Typed))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
        Ok(T::exact_i64(n).map_or(super::Loose::Other(Value::from(n)), super::Loose::Typed))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Self::Value, E> {
        Ok(super::Loose::Other(Value::from(n)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(T::exact_str(s).map_or_else(|| super::Loose::Other(Value::from(s)), super::Loose::Typed))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(super::Loose::Other(Value::Null))
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(super::Loose::Other(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(seq)).map(super::Loose::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(MapAccessDeserializer::new(map)).map(super::Loose::Other)
    }
}
