//! AFL++ target: [`twain_fuzz::vlog_file`].
fn main() {
    afl::fuzz!(|data: &[u8]| twain_fuzz::vlog_file(data));
}
