//! AFL++ target: [`twain_fuzz::table`].
fn main() {
    afl::fuzz!(|data: &[u8]| twain_fuzz::table(data));
}
