//! AFL++ target: [`twain_fuzz::header_frame`].
fn main() {
    afl::fuzz!(|data: &[u8]| twain_fuzz::header_frame(data));
}
