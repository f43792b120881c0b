//! The browser suite: every scenario of `tests/browser/harness.js`, run by
//! wasm-bindgen-test in headless Chromium and Firefox.
//!
//! Compiled into the library's own test build (see `src/bindings/mod.rs`), since
//! only that build exports the library's `#[wasm_bindgen]` items to JS.

use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(module = "/tests/browser/harness.js")]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn scenario(name: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = errorCode)]
    async fn error_code(name: &str) -> JsValue;
}

async fn run(name: &str) {
    if let Err(error) = scenario(name).await {
        let message = js_sys::Reflect::get(&error, &"stack".into())
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or_else(|| format!("{error:?}"));
        panic!("{name}: {message}");
    }
}

macro_rules! scenarios {
    ($($name:ident),* $(,)?) => {
        $(
            #[wasm_bindgen_test]
            async fn $name() {
                run(stringify!($name)).await;
            }
        )*
    };
}

scenarios!(
    port_round_trip_results_and_errors,
    port_notifications,
    port_invalid_messages_get_spec_answers,
    port_foreign_traffic_is_left_alone,
    peer_both_directions_and_shared_transport,
    burst_of_calls_goes_out_as_one_batch,
    a_slow_handler_does_not_hold_back_its_batch,
    server_batch_policy,
    timeouts,
    destroy_rejects_pending_and_removes_listeners,
    abort,
    handler_signal_fires_on_cancel_and_destroy,
    remote_proxy_and_exposed_objects,
    streamed_results_chunks_then_answer,
    streamed_results_on_the_wire,
    introspection_lists_and_describes_methods,
    a_schema_checks_params_in_the_browser,
    port_structured_clone_passthrough_and_transfer,
    uncloneable_result_fails_that_call_only,
    text_transport_gets_json_text,
    worker_round_trip_passthrough_transfer,
    worker_startup_race_loses_nothing,
    progress_keeps_a_long_call_alive,
    errors_arrive_whole,
    iframe_same_origin,
    iframe_sandboxed_opaque_origin,
    window_origin_and_source_checks_refuse_others,
    reference_server_on_a_port_answers_several_calls_per_turn,
    reference_client_on_a_port_calls_our_server,
    reference_worker_both_directions,
    reference_frame_both_directions,
    odd_ids_are_refused_and_thrown_codes_kept,
);

#[wasm_bindgen_test]
async fn js_error_codes_match_the_core() {
    for &(name, code) in crate::core::code::ALL {
        assert_eq!(error_code(name).await.as_f64(), Some(code as f64), "{name}");
    }
}
