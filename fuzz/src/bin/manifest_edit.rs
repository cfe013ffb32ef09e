//! AFL++ target: [`twain_fuzz::manifest_edit`].
fn main() {
    afl::fuzz!(|data: &[u8]| twain_fuzz::manifest_edit(data));
}
