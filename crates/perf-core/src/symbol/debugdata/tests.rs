// SPDX-License-Identifier: GPL-2.0-only
//! The caps of `.gnu_debugdata` decompression, on streams made by `xz`.

use super::*;
use std::io::Write;
use std::process::{Command, Stdio};

/// `data` compressed by `xz` with `args`, read from a pipe (so `xz` does
/// not shrink the dictionary to the input's size).
fn xz(data: &[u8], args: &[&str]) -> Vec<u8> {
    let mut child = Command::new("xz")
        .args(args)
        .args(["-c", "--check=crc32"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("xz (xz-utils) is installed");
    let mut stdin = child.stdin.take().unwrap();
    let input = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success());
    out.stdout
}

#[test]
fn a_stream_round_trips_and_declares_its_size() {
    let data: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let stream = xz(&data, &[]);
    assert_eq!(declared_size(&stream), Some(data.len() as u64));
    assert_eq!(decompress(&stream).as_deref(), Some(&data[..]));
    // Stream padding after the footer is allowed.
    let mut padded = stream.clone();
    padded.extend_from_slice(&[0; 8]);
    assert_eq!(declared_size(&padded), Some(data.len() as u64));
}

#[test]
fn a_declared_size_over_the_cap_is_refused_before_decoding() {
    let stream = xz(&[0u8; 1 << 20], &[]);
    assert_eq!(declared_size(&stream), Some(1 << 20));
    assert!(decompress_capped(&stream, (1 << 20) - 1).is_none());
    assert!(decompress_capped(&stream, 1 << 20).is_some());
}

#[test]
fn a_stream_that_lies_about_its_size_stops_at_the_cap() {
    let mut stream = xz(&[0u8; 1 << 20], &[]);
    // The index's one record: [0x00, count=1, unpadded, uncompressed...];
    // make the uncompressed size 1 byte (its CRC no longer matches, but
    // the reading stops at the cap before the index is reached).
    let end = stream.len() - 12;
    let backward = u32::from_le_bytes(stream[end + 4..end + 8].try_into().unwrap());
    let index = end - (backward as usize + 1) * 4;
    assert_eq!(&stream[index..index + 2], &[0, 1]);
    let mut at = index + 2;
    varint(&stream, &mut at).unwrap();
    // 1 MiB is a 3-byte varint: make it 1 without changing the length.
    stream[at..at + 3].copy_from_slice(&[0x81, 0x80, 0x00]);
    assert_eq!(declared_size(&stream), Some(1));
    assert!(decompress_capped(&stream, 64 << 10).is_none());
}

#[test]
fn a_dictionary_over_the_limit_is_refused_before_it_is_allocated() {
    // 1.5 GiB of dictionary for 5 bytes: the decoder would allocate it.
    let stream = xz(b"hello", &["--lzma2=dict=1536MiB"]);
    assert_eq!(declared_size(&stream), Some(5));
    assert!(decompress(&stream).is_none());
    let small = xz(b"hello", &["--lzma2=dict=64MiB"]);
    assert_eq!(decompress(&small).as_deref(), Some(&b"hello"[..]));
}

#[test]
fn garbage_is_not_a_stream() {
    for bytes in [&b""[..], b"YZ", &[0u8; 64], b"\xfd7zXZ\0 not really"] {
        assert!(decompress(bytes).is_none());
    }
}
