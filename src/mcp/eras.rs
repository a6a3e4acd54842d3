//! The two MCP protocol eras: which one a request speaks, and how each era's results are dressed.
//!
//! Must not: dispatch methods or touch tools; it only classifies and decorates.
//!
//! Legacy era (MCP 2024-11-05 … 2025-11-25, "Lifecycle"): an `initialize` handshake negotiates one
//! version for the stdio process; results carry no era fields.
//!
//! Modern era, MCP **2026-07-28**. Implemented from the revision's own text
//! (`docs/specification/2026-07-28/` and `schema/2026-07-28/schema.ts` in
//! modelcontextprotocol/modelcontextprotocol):
//! - § Versioning › Protocol Version Negotiation, Backward Compatibility: a request whose
//!   `params._meta` carries `io.modelcontextprotocol/protocolVersion` is served statelessly;
//!   an unsupported version → `-32022 UnsupportedProtocolVersion` with
//!   `data {supported, requested}`. agentdap is dual-era: `supported` lists the modern version and
//!   every legacy version it negotiates, newest first; a request that names a legacy version in
//!   `_meta` is served with legacy semantics (that version is reached through `initialize`).
//! - § Basic › `_meta` › Per-request protocol fields: `protocolVersion` and `clientCapabilities`
//!   are required (missing → `-32602`); `clientInfo` and `logLevel` optional; results SHOULD carry
//!   `io.modelcontextprotocol/serverInfo` in `_meta`.
//! - § Basic › ResultType: every result carries `resultType` (`"complete"`; agentdap never returns
//!   `"input_required"`).
//! - § Server › Utilities › Caching: `ttlMs` (≥ 0) and `cacheScope` (`public`/`private`) on
//!   `server/discover`, `tools/list`, `resources/list`, `resources/templates/list`,
//!   `resources/read`.
//! - § Server › Discovery: `server/discover` → `supportedVersions`, `capabilities`,
//!   `instructions`, plus the caching and `_meta` fields above.
//! - § Patterns › Subscriptions: `subscriptions/listen` is acknowledged with
//!   `notifications/subscriptions/acknowledged` (only the filter parts agentdap honours: it has no
//!   list-changed notifications, so only `resourceSubscriptions`), the request stays open, every
//!   notification on it carries `io.modelcontextprotocol/subscriptionId` (= the request id),
//!   `notifications/cancelled` ends it without a response, a server-side close answers it with
//!   `{resultType: "complete", _meta: {subscriptionId}}`.
//! - § Changelog (removed): `initialize`, `notifications/initialized`, `ping`, `logging/setLevel`,
//!   `resources/subscribe`/`unsubscribe` → `-32601` in a modern request.
//! - § Server › Resources › Error Handling: resource not found → `-32602` (legacy: `-32002`).
//! - § Patterns › Cancellation, Progress: unchanged from 2025-11-25.

use serde_json::{json, Map, Value};

use super::RpcError;
use crate::jsonrpc::INVALID_PARAMS;

/// The modern protocol revision agentdap serves (MCP 2026-07-28).
pub const MODERN: &str = "2026-07-28";
/// Legacy versions echoed by `initialize` (MCP 2025-11-25 § Lifecycle › Version Negotiation).
pub const LEGACY: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Answered to an `initialize` that asks for any other version.
pub const LATEST_LEGACY: &str = "2025-11-25";
/// The only legacy version with JSON-RPC batches (MCP 2025-03-26 § Transports).
pub const BATCH_VERSION: &str = "2025-03-26";
/// Everything agentdap speaks, newest first (`server/discover.supportedVersions`, `-32022` data).
pub const SUPPORTED: [&str; 5] = [MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Request `_meta`, required: the request's protocol version (MCP 2026-07-28 § Basic › `_meta`).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Request `_meta`, required: the client's capabilities for this request (an object).
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Request `_meta`, optional: `{name, version}` of the client.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// Request `_meta`, optional (deprecated): the minimum level of `notifications/message` wanted.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta`, SHOULD: `{name, version}` of the server.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Notification and listen-result `_meta`: the id of the `subscriptions/listen` request.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Methods that exist only in the legacy era; `-32601` in a modern request.
const LEGACY_ONLY: [&str; 5] =
    ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"];
/// Methods that exist only in the modern era; they require the per-request `_meta`.
const MODERN_ONLY: [&str; 2] = ["server/discover", "subscriptions/listen"];

/// How one request is served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// Session semantics from `initialize` (or none yet: requests are never gated on it).
    Legacy,
    /// Stateless MCP 2026-07-28.
    Modern,
}

/// Decides the era of one request from its `params._meta` (MCP 2026-07-28 § Versioning).
///
/// Errors: `-32022` for a version agentdap does not speak, `-32602` for a malformed or missing
/// required `_meta` key (including a modern-only method sent without `_meta`).
pub fn detect(method: &str, params: Option<&Value>) -> Result<Era, RpcError> {
    let meta = params.and_then(|p| p.get("_meta")).and_then(Value::as_object);
    let Some(version) = meta.and_then(|m| m.get(META_PROTOCOL_VERSION)) else {
        if MODERN_ONLY.contains(&method) {
            return Err(missing_meta(META_PROTOCOL_VERSION));
        }
        return Ok(Era::Legacy);
    };
    let Some(version) = version.as_str() else {
        return Err(RpcError::new(
            INVALID_PARAMS,
            format!("Invalid params: _meta \"{META_PROTOCOL_VERSION}\" must be a string"),
        ));
    };
    if LEGACY.contains(&version) {
        return Ok(Era::Legacy);
    }
    if version != MODERN {
        return Err(RpcError::unsupported_version(version));
    }
    match meta.and_then(|m| m.get(META_CLIENT_CAPABILITIES)) {
        Some(Value::Object(_)) => Ok(Era::Modern),
        Some(_) => Err(RpcError::new(
            INVALID_PARAMS,
            format!("Invalid params: _meta \"{META_CLIENT_CAPABILITIES}\" must be an object"),
        )),
        None => Err(missing_meta(META_CLIENT_CAPABILITIES)),
    }
}

fn missing_meta(key: &str) -> RpcError {
    RpcError::new(INVALID_PARAMS, format!("Invalid params: missing required _meta key \"{key}\""))
}

/// Whether `method` was removed in MCP 2026-07-28 (answered `-32601` in a modern request).
pub fn legacy_only(method: &str) -> bool {
    LEGACY_ONLY.contains(&method)
}

/// Whether `method` exists only in MCP 2026-07-28 (answered `-32601` in a legacy request).
pub fn modern_only(method: &str) -> bool {
    MODERN_ONLY.contains(&method)
}

/// Who may cache a result (MCP 2026-07-28 § Caching › Cache Scope Field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The same for every user of this binary (tool list, templates, discovery).
    Public,
    /// Reflects this process's debugging state (program paths, sessions).
    Private,
}

/// Caching hints of a cacheable result (MCP 2026-07-28 § Caching): `ttl_ms` in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cache {
    pub ttl_ms: u64,
    pub scope: Scope,
}

/// Static for the life of the binary: one hour.
pub const CACHE_STATIC: Cache = Cache { ttl_ms: 3_600_000, scope: Scope::Public };
/// Live debugging state: immediately stale.
pub const CACHE_LIVE: Cache = Cache { ttl_ms: 0, scope: Scope::Private };

/// `{"name": "agentdap", "version": <crate version>}` (MCP `Implementation`).
pub fn server_info() -> Value {
    json!({"name": "agentdap", "version": env!("CARGO_PKG_VERSION")})
}

/// Adds the modern fields to a result object: `resultType: "complete"`, the caching hints when
/// the method is cacheable, and `_meta["io.modelcontextprotocol/serverInfo"]` (kept alongside any
/// `_meta` keys the result already has). Legacy results are returned untouched.
pub fn dress(era: Era, mut result: Value, cache: Option<Cache>) -> Value {
    if era == Era::Legacy {
        return result;
    }
    let Value::Object(map) = &mut result else {
        return result;
    };
    map.insert("resultType".into(), Value::from("complete"));
    if let Some(cache) = cache {
        map.insert("ttlMs".into(), Value::from(cache.ttl_ms));
        let scope = match cache.scope {
            Scope::Public => "public",
            Scope::Private => "private",
        };
        map.insert("cacheScope".into(), Value::from(scope));
    }
    let meta = map.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert(META_SERVER_INFO.into(), server_info());
    }
    result
}
