//! AFL++ target: [`twain_fuzz::drops`].
fn main() {
    afl::fuzz!(|data: &[u8]| twain_fuzz::drops(data));
}
