//! AFL++ target: [`twain_fuzz::vlog_batch`].
fn main() {
    afl::fuzz!(|data: &[u8]| twain_fuzz::vlog_batch(data));
}
