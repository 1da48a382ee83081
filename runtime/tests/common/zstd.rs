//! How far zstd compresses data, for the tests that check written data
//! does not (or does, by its share): one definition for the runtime's unit
//! tests (src/data.rs) and its integration tests (tests/data.rs).

/// zstd's compressed size over the original: at `level`, with long
/// distance matching (a 128MiB window, as `zstd --long`) if `long`.
pub fn zstd_ratio(data: &[u8], level: i32, long: bool) -> f64 {
    let mut c = zstd::bulk::Compressor::new(level).unwrap();
    if long {
        c.set_parameter(zstd::zstd_safe::CParameter::EnableLongDistanceMatching(true)).unwrap();
        c.set_parameter(zstd::zstd_safe::CParameter::WindowLog(27)).unwrap();
    }
    c.compress(data).unwrap().len() as f64 / data.len() as f64
}
