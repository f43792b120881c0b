//! The build-time checks that JS says what Rust says: `ErrorCode` (glue.js)
//! and its declaration (`js/types/wiggum_rpc.d.ts`, which the build copies
//! beside the root entry) list the core's codes; `defines` reads a JS
//! constant for `abi`'s check.

/// The declarations of the root entry.
const DECLARATIONS: &str = include_str!("../../js/types/wiggum_rpc.d.ts");

// The error-code table exists once, as `code::ALL`; the JS `ErrorCode` in
// glue.js and its declaration (js/types/wiggum_rpc.d.ts) are checked against it when this
// compiles: a code added, renamed or renumbered in one place only fails the
// build, whichever place it is.
#[allow(long_running_const_eval)]
const _: () = {
    assert!(
        lists_every_code(
            include_str!("../../js/module/glue.js").as_bytes(),
            b"export const ErrorCode = Object.freeze({",
            b','
        ),
        "glue.js: ErrorCode differs from code::ALL (same names, values and order)"
    );
    assert!(
        lists_every_code(DECLARATIONS.as_bytes(), b"export declare const ErrorCode: Readonly<{", b';'),
        "wiggum_rpc.d.ts: the ErrorCode declaration differs from code::ALL (same names, values and order)"
    );
};

/// Whether the table that follows `opening` in `text` is exactly `code::ALL`:
/// one `NAME: value` entry per line, each ended by `end`, then `}`.
const fn lists_every_code(text: &[u8], opening: &[u8], end: u8) -> bool {
    use crate::core::code::ALL;
    let Some(mut at) = find(text, opening, 0) else { return false };
    at += opening.len();
    let mut entry = 0;
    loop {
        while at < text.len() && text[at].is_ascii_whitespace() {
            at += 1;
        }
        if at >= text.len() {
            return false;
        }
        if text[at] == b'}' {
            return entry == ALL.len();
        }
        if entry == ALL.len() {
            return false;
        }
        let (name, value) = ALL[entry];
        let name = name.as_bytes();
        if !starts_at(text, name, at) || at + name.len() + 2 > text.len() {
            return false;
        }
        at += name.len();
        if text[at] != b':' || text[at + 1] != b' ' {
            return false;
        }
        at += 2;
        let negative = at < text.len() && text[at] == b'-';
        if negative {
            at += 1;
        }
        let mut number: i64 = 0;
        let digits = at;
        while at < text.len() && text[at].is_ascii_digit() {
            number = number * 10 + (text[at] - b'0') as i64;
            at += 1;
        }
        if at == digits || at >= text.len() || text[at] != end || (if negative { -number } else { number }) != value {
            return false;
        }
        at += 1;
        entry += 1;
    }
}

/// Where the declaration ends if `text`, from `from` on, has `declaration`
/// followed by `value` and `;`, the value written as a number or as `1 << n`
/// (`const RESOLVED = 4;`, `const TEXT = 1 << 13;`). Declarations checked
/// in the order of the file each search on from the last: the build's
/// constant evaluation reads the file once.
pub(super) const fn defines(text: &[u8], declaration: &[u8], value: u32, from: usize) -> Option<usize> {
    let Some(at) = find(text, declaration, from) else { return None };
    let Some((number, at)) = number_at(text, at + declaration.len()) else { return None };
    if starts_at(text, b";", at) {
        return if number == value { Some(at) } else { None };
    }
    if !starts_at(text, b" << ", at) {
        return None;
    }
    match number_at(text, at + 4) {
        Some((shift, at)) if number == 1 && shift < 32 && 1 << shift == value && starts_at(text, b";", at) => Some(at),
        _ => None,
    }
}

/// The decimal number at `at`, and where it ends.
const fn number_at(text: &[u8], mut at: usize) -> Option<(u32, usize)> {
    let digits = at;
    let mut number: u32 = 0;
    while at < text.len() && text[at].is_ascii_digit() {
        number = number * 10 + (text[at] - b'0') as u32;
        at += 1;
    }
    if at == digits {
        None
    } else {
        Some((number, at))
    }
}

/// Whether `needle` occurs in `text` at `at`.
const fn starts_at(text: &[u8], needle: &[u8], at: usize) -> bool {
    if at + needle.len() > text.len() {
        return false;
    }
    let mut i = 0;
    while i < needle.len() && text[at + i] == needle[i] {
        i += 1;
    }
    i == needle.len()
}

/// Where `needle` first occurs in `text`, at or after `from`.
const fn find(text: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while at + needle.len() <= text.len() {
        if starts_at(text, needle, at) {
            return Some(at);
        }
        at += 1;
    }
    None
}
