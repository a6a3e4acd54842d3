//! Unit tests for the frame decoder and encoder.

use super::*;

fn frames(chunks: &[&[u8]]) -> Vec<Result<Vec<u8>, Diagnostic>> {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    for c in chunks {
        dec.feed(c, |r| out.push(r.map(|b| b.to_vec())));
    }
    out
}

#[test]
fn two_frames_in_one_read() {
    let got = frames(&[b"Content-Length: 2\r\n\r\n{}Content-Length: 4\r\n\r\nnull"]);
    assert_eq!(got, vec![Ok(b"{}".to_vec()), Ok(b"null".to_vec())]);
}
