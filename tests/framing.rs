//! The Content-Length codec: the story's framing rules, any chunking, garbage.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use wiggum_rpc::core::framing::{encode, Decoder, Frame, MAX_BODY};

fn messages(frames: Vec<Frame>) -> Vec<String> {
    frames
        .into_iter()
        .map(|frame| match frame {
            Frame::Message(text) => text,
            Frame::Error(error) => format!("error {}", error.code),
        })
        .collect()
}

fn decode(input: &[u8]) -> Vec<String> {
    messages(Decoder::new().push(input))
}

#[test]
fn a_frame_with_a_matching_length_parses() {
    assert_eq!(decode(b"Content-Length: 2\r\n\r\n{}"), vec!["{}"]);
}

#[test]
fn back_to_back_frames_come_out_in_order() {
    let mut input = encode(r#"{"a":1}"#);
    input.extend(encode(r#"{"b":2}"#));
    input.extend(encode(r#"{"c":"é"}"#));
    assert_eq!(decode(&input), vec![r#"{"a":1}"#, r#"{"b":2}"#, r#"{"c":"é"}"#]);
}

#[test]
fn content_length_counts_utf8_bytes() {
    let body = r#"{"text":"héllo ✓"}"#;
    assert_ne!(body.len(), body.chars().count());
    let frame = encode(body);
    assert!(String::from_utf8_lossy(&frame).starts_with(&format!("Content-Length: {}\r\n", body.len())));
    assert_eq!(decode(&frame), vec![r#"{"text":"héllo ✓"}"#]);
}

#[test]
fn accepted_content_types() {
    for content_type in [
        "application/vscode-jsonrpc; charset=utf-8",
        "application/vscode-jsonrpc; charset=UTF-8",
        "application/vscode-jsonrpc; charset=utf8",
        "application/vscode-jsonrpc;charset=Utf-8",
        "application/vscode-jsonrpc",
    ] {
        let input = format!("Content-Length: 2\r\nContent-Type: {content_type}\r\n\r\n{{}}");
        assert_eq!(decode(input.as_bytes()), vec!["{}"], "{content_type}");
    }
}

#[test]
fn other_content_types_are_invalid_requests_and_the_stream_goes_on() {
    for content_type in ["application/json", "application/vscode-jsonrpc; charset=iso-8859-1", "text/plain"] {
        let mut input = format!("Content-Length: 2\r\nContent-Type: {content_type}\r\n\r\n{{}}").into_bytes();
        input.extend(encode("[]"));
        assert_eq!(decode(&input), vec!["error -32600", "[]"], "{content_type}");
    }
}

#[test]
fn unknown_headers_are_ignored_and_names_are_case_insensitive() {
    assert_eq!(decode(b"X-Trace: 1\r\ncontent-length: 2\r\nSomething: else\r\n\r\n{}"), vec!["{}"]);
}

#[test]
fn a_missing_or_bad_content_length_is_an_invalid_request() {
    assert_eq!(decode(b"Content-Type: application/vscode-jsonrpc\r\n\r\n"), vec!["error -32600"]);
    assert_eq!(decode(b"Content-Length: ten\r\n\r\n"), vec!["error -32600"]);
}

#[test]
fn a_body_over_10_mb_is_refused_without_being_buffered() {
    let mut decoder = Decoder::new();
    let header = format!("Content-Length: {}\r\n\r\n", MAX_BODY + 1);
    assert_eq!(
        messages(decoder.push(header.as_bytes())),
        vec!["error -32600"],
        "answered as soon as the header says so"
    );
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..10 {
        assert!(decoder.push(&chunk).is_empty());
        assert_eq!(decoder.buffered(), 0, "the body is not buffered");
    }
    let mut last = vec![b'x'];
    last.extend(encode("{}"));
    assert_eq!(messages(decoder.push(&last)), vec!["{}"], "back in step after the body");
}

#[test]
fn a_length_mismatch_is_a_parse_error_at_json_level() {
    // Too long: the body swallows the next frame's start; the codec hands out
    // text that the JSON parser refuses (-32700), and then finds its feet.
    let mut input = b"Content-Length: 9\r\n\r\n{}".to_vec();
    input.extend(encode(r#"{"after":1}"#));
    input.extend(encode(r#"{"again":2}"#));
    let out = decode(&input);
    assert!(serde_json::from_str::<serde_json::Value>(&out[0]).is_err(), "{out:?}");
    assert_eq!(out.last().unwrap(), r#"{"again":2}"#);
}

#[test]
fn partial_input_waits_and_reset_drops_it() {
    let mut decoder = Decoder::new();
    assert!(decoder.push(b"Content-Length: 5\r\n\r\n{\"a\"").is_empty());
    assert!(decoder.is_partial());
    decoder.reset();
    assert!(!decoder.is_partial());
    assert_eq!(messages(decoder.push(&encode("{}"))), vec!["{}"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_chunking_gives_the_same_frames(
        bodies in prop::collection::vec("[ -~é✓]{0,40}", 1..6),
        cuts in prop::collection::vec(0usize..400, 0..12),
    ) {
        let input: Vec<u8> = bodies.iter().flat_map(|b| encode(b)).collect();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (input.len() + 1)).collect();
        cuts.sort_unstable();
        let mut decoder = Decoder::new();
        let mut out = Vec::new();
        let mut from = 0;
        for cut in cuts.into_iter().chain([input.len()]) {
            out.extend(messages(decoder.push(&input[from..cut])));
            from = cut;
        }
        prop_assert_eq!(out, bodies);
        prop_assert!(!decoder.is_partial());
    }

    #[test]
    fn garbage_never_panics_and_memory_stays_bounded(
        chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..2000), 0..20),
    ) {
        let mut decoder = Decoder::new();
        for chunk in chunks {
            let _ = decoder.push(&chunk);
        }
        // Whatever came in, a clean frame afterwards still gets through once
        // the decoder is reset (as the daemon does on its read timeout).
        decoder.reset();
        prop_assert_eq!(messages(decoder.push(&encode("{}"))), vec!["{}".to_owned()]);
    }

    #[test]
    fn header_garbage_is_bounded(noise in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..5000), 1..8)) {
        let mut decoder = Decoder::new();
        for chunk in noise {
            let _ = decoder.push(&chunk);
            prop_assert!(decoder.buffered() <= 8 * 1024, "buffered {}", decoder.buffered());
        }
    }
}

#[test]
fn a_refused_frame_is_answered_with_the_same_bytes_everywhere() {
    use wiggum_rpc::core::framing::refusal_body;
    use wiggum_rpc::core::ErrorObject;
    let error = ErrorObject::<()>::new(-32600, "Message \"larger\" than 10 MB\n\\");
    let body = refusal_body(&error);
    let parsed: serde_json::Value = serde_json::from_str(&body).expect("JSON text");
    assert_eq!(
        parsed,
        serde_json::json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Message \"larger\" than 10 MB\n\\"},"id":null})
    );
}
