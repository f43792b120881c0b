//! Error codes (the spec's five, the library's own, the Wiggum domain codes)
//! and the error object carried by an error response.

use crate::prelude::*;

/// Named error codes. Wire codes come from the JSON-RPC 2.0 specification and
/// the Wiggum domain table; the `REQUEST_*`/`DESTROYED` codes name how a call
/// ended on the caller's side, and travel on the wire only as the answer to a
/// call whose deadline (its caller's, [`crate::core::DEADLINE`]) has passed.
pub mod code {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid Request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameter(s).
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error; also what a throwing handler sends.
    pub const INTERNAL_ERROR: i64 = -32603;

    /// esbuild compilation failed; `data` carries the diagnostics.
    pub const BUILD_FAILED: i64 = -32001;
    /// A quality gate did not pass; `data` carries the gate and findings.
    pub const GATE_FAILED: i64 = -32002;
    /// The user denied a permission request.
    pub const PERMISSION_DENIED: i64 = -32003;
    /// The task was cancelled by the user or the coordinator.
    pub const TASK_CANCELLED: i64 = -32004;
    /// The preview's index.html could not be loaded or parsed.
    pub const PREVIEW_LOAD_FAILED: i64 = -32005;
    /// SPA route navigation failed.
    pub const NAVIGATION_FAILED: i64 = -32006;
    /// An upstream MCP server returned an error; `data` carries its response.
    pub const MCP_SERVER_ERROR: i64 = -32007;
    /// The request would exceed the model's context window.
    pub const CONTEXT_OVERFLOW: i64 = -32008;

    /// The caller's deadline passed before a response arrived (also the
    /// answer of a side that served the call past the deadline it was given).
    pub const REQUEST_TIMEOUT: i64 = -32099;
    /// The client or peer was destroyed while the call was pending.
    pub const DESTROYED: i64 = -32098;
    /// The response broke the spec (both `result` and `error`, a malformed
    /// error object) and cannot be trusted.
    pub const INVALID_RESPONSE: i64 = -32097;
    /// The transport refused the message (for example a `DataCloneError`).
    pub const SEND_FAILED: i64 = -32096;
    /// The connection closed (a WebSocket) while the call was pending.
    pub const CONNECTION_CLOSED: i64 = -32095;
    /// An HTTP reply that is not JSON-RPC (a 500 page, a 401), toward a
    /// plain JSON-RPC server; `data` has the status and body. (Toward an MCP
    /// server it is `MCP_SERVER_ERROR`.)
    pub const HTTP_ERROR: i64 = -32094;
    /// The MCP server no longer knows the session (a 404): initialize again.
    pub const SESSION_EXPIRED: i64 = -32093;
    /// The caller aborted the call (LSP's `RequestCancelled`).
    pub const REQUEST_CANCELLED: i64 = -32800;
    /// A server refused a call because the caller already has the most calls
    /// in flight it serves for one peer (see `Limits::max_in_flight`).
    pub const TOO_MANY_CALLS: i64 = -32092;
    /// A call of a reference that is not live: released, or never sent on
    /// this connection; or a message passing back a reference so.
    pub const UNKNOWN_REFERENCE: i64 = -32091;
    /// Past `Limits::max_references`: the other side holds that many of
    /// this side's references (or this side that many stubs of its).
    pub const TOO_MANY_REFERENCES: i64 = -32090;

    /// The spec's message for one of its five codes ("Server error" in the
    /// reserved range, "Error" otherwise): what an error built from a bare
    /// code says. (`ALL` names every code.)
    pub fn message(code: i64) -> &'static str {
        match code {
            PARSE_ERROR => "Parse error",
            INVALID_REQUEST => "Invalid Request",
            METHOD_NOT_FOUND => "Method not found",
            INVALID_PARAMS => "Invalid params",
            INTERNAL_ERROR => "Internal error",
            _ if (-32099..=-32000).contains(&code) => "Server error",
            _ => "Error",
        }
    }

    /// Every named code with its constant's name, for tables and bindings.
    pub const ALL: &[(&str, i64)] = &[
        ("PARSE_ERROR", PARSE_ERROR),
        ("INVALID_REQUEST", INVALID_REQUEST),
        ("METHOD_NOT_FOUND", METHOD_NOT_FOUND),
        ("INVALID_PARAMS", INVALID_PARAMS),
        ("INTERNAL_ERROR", INTERNAL_ERROR),
        ("BUILD_FAILED", BUILD_FAILED),
        ("GATE_FAILED", GATE_FAILED),
        ("PERMISSION_DENIED", PERMISSION_DENIED),
        ("TASK_CANCELLED", TASK_CANCELLED),
        ("PREVIEW_LOAD_FAILED", PREVIEW_LOAD_FAILED),
        ("NAVIGATION_FAILED", NAVIGATION_FAILED),
        ("MCP_SERVER_ERROR", MCP_SERVER_ERROR),
        ("CONTEXT_OVERFLOW", CONTEXT_OVERFLOW),
        ("REQUEST_TIMEOUT", REQUEST_TIMEOUT),
        ("DESTROYED", DESTROYED),
        ("INVALID_RESPONSE", INVALID_RESPONSE),
        ("SEND_FAILED", SEND_FAILED),
        ("CONNECTION_CLOSED", CONNECTION_CLOSED),
        ("HTTP_ERROR", HTTP_ERROR),
        ("SESSION_EXPIRED", SESSION_EXPIRED),
        ("REQUEST_CANCELLED", REQUEST_CANCELLED),
        ("TOO_MANY_CALLS", TOO_MANY_CALLS),
        ("UNKNOWN_REFERENCE", UNKNOWN_REFERENCE),
        ("TOO_MANY_REFERENCES", TOO_MANY_REFERENCES),
    ];
}

/// The `error` member of an error response.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorObject<V> {
    pub code: i64,
    pub message: String,
    pub data: Option<V>,
}

impl<V> ErrorObject<V> {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject { code, message: message.into(), data: None }
    }

    /// An error with the standard message of its code.
    pub fn standard(code: i64) -> Self {
        Self::new(code, code::message(code))
    }

    pub fn with_data(mut self, data: V) -> Self {
        self.data = Some(data);
        self
    }
}
