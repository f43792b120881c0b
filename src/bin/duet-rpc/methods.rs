//! The daemon's six methods, with their exact shapes.

use std::cell::Cell;
use std::rc::Rc;

use serde_json::{json, Value as Json};
use wiggum_rpc::core::{code, Endpoint, ErrorObject};

use crate::cli::{NAME, VERSION};
use crate::log::{Level, Logger};

pub type Outcome = Result<Json, ErrorObject<Json>>;

/// A method of the daemon. Shared by reference: the dispatcher hands out clones.
#[derive(Clone)]
pub struct Method(Rc<dyn Fn(Option<Json>) -> Outcome>);

impl Method {
    pub fn new(handler: impl Fn(Option<Json>) -> Outcome + 'static) -> Method {
        Method(Rc::new(handler))
    }

    pub fn call(&self, params: Option<Json>) -> Outcome {
        (self.0)(params)
    }
}

/// Name, description, params and return type of every method: the one table
/// `listMethods`, `describeMethods` and registration read.
const METHODS: [(&str, &str, &[&str], &str); 6] = [
    (
        "initialize",
        "Returns the server's name and version and the protocol version",
        &[],
        "{serverInfo: {name: string, version: string}, protocolVersion: string}",
    ),
    (
        "listMethods",
        "Lists the available methods with a description of each",
        &[],
        "[{name: string, description: string}]",
    ),
    (
        "describeMethods",
        "Lists the available methods with their params and return types",
        &[],
        "[{name: string, params: string[], returns: string}]",
    ),
    ("version", "Returns the daemon's version", &[], "{version: string}"),
    (
        "setLogLevel",
        "Sets the log verbosity: debug, info, warn or error (any case)",
        &["level: string"],
        "{level: string, success: boolean}",
    ),
    ("shutdown", "Answers, then stops the daemon", &[], "{message: string}"),
];

/// Registers the six methods, as methods and as notifications (a notification
/// of a known method does its work silently).
pub fn register(endpoint: &mut Endpoint<Json, Method, ()>, logger: &Logger, shutdown: Rc<Cell<bool>>) {
    for (name, _, _, _) in METHODS {
        let method = match name {
            "initialize" => {
                Method::new(|_| Ok(json!({"serverInfo": {"name": NAME, "version": VERSION}, "protocolVersion": "2.0"})))
            }
            "listMethods" => Method::new(|_| {
                Ok(Json::Array(
                    METHODS
                        .iter()
                        .map(|(name, description, _, _)| json!({"name": name, "description": description}))
                        .collect(),
                ))
            }),
            "describeMethods" => {
                Method::new(|_| {
                    Ok(Json::Array(
                    METHODS.iter().map(|(name, _, params, returns)| json!({"name": name, "params": params, "returns": returns})).collect(),
                ))
                })
            }
            "version" => Method::new(|_| Ok(json!({"version": VERSION}))),
            "setLogLevel" => {
                let logger = logger.clone();
                Method::new(move |params| {
                    let level = level_param(params.as_ref())?;
                    logger.set_level(level);
                    logger.info(&format!("log level set to {}", level.name()));
                    Ok(json!({"level": level.name(), "success": true}))
                })
            }
            "shutdown" => {
                let shutdown = shutdown.clone();
                Method::new(move |_| {
                    shutdown.set(true);
                    Ok(json!({"message": "Shutting down gracefully"}))
                })
            }
            _ => unreachable!("every entry of METHODS is registered"),
        };
        endpoint.set_method(name, method.clone());
        endpoint.set_notification(name, method);
    }
}

/// Reads `level` from `{"level": …}` (or `["…"]`): `-32602` with `error.data`
/// naming the parameter and the accepted values otherwise.
fn level_param(params: Option<&Json>) -> Result<Level, ErrorObject<Json>> {
    let given = match params {
        Some(Json::Object(named)) => named.get("level"),
        Some(Json::Array(positional)) => positional.first(),
        _ => None,
    };
    let invalid = |message: &str| {
        ErrorObject::new(code::INVALID_PARAMS, message).with_data(json!({
            "param": "level",
            "expected": Level::NAMES,
            "received": given.cloned().unwrap_or(Json::Null),
        }))
    };
    match given {
        None => Err(invalid("Invalid params: missing required parameter 'level'")),
        Some(Json::String(name)) => Level::parse(name).ok_or_else(|| invalid("Invalid params: unknown log level")),
        Some(_) => Err(invalid("Invalid params: 'level' must be a string")),
    }
}
