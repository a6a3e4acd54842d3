//! Generated JSON values for the differential tests of [`super::read`] and [`super::write`]:
//! strings from any chars (control characters included), every number kind, nesting up to a
//! small depth.

use quickcheck::{Arbitrary, Gen};
use serde_json::{json, Value};

#[derive(Clone, Debug)]
pub struct AnyValue(pub Value);

fn any_value(g: &mut Gen, depth: usize) -> Value {
    let kinds = if depth == 0 { 6 } else { 8 };
    match u8::arbitrary(g) % kinds {
        0 => Value::Null,
        1 => Value::Bool(bool::arbitrary(g)),
        2 => json!(i64::arbitrary(g)),
        3 => json!(u64::arbitrary(g)),
        4 => {
            let f = f64::arbitrary(g);
            if f.is_finite() {
                json!(f)
            } else {
                json!(0.25)
            }
        }
        5 => Value::String(String::arbitrary(g)),
        6 => Value::Array((0..usize::arbitrary(g) % 4).map(|_| any_value(g, depth - 1)).collect()),
        _ => Value::Object(
            (0..usize::arbitrary(g) % 4).map(|_| (String::arbitrary(g), any_value(g, depth - 1))).collect(),
        ),
    }
}

impl Arbitrary for AnyValue {
    fn arbitrary(g: &mut Gen) -> AnyValue {
        AnyValue(any_value(g, 3))
    }
}
