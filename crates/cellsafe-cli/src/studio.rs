//! `cellsafe studio`: the workbench in the browser (`cellsafe-studio`), with the
//! `studio` feature; without it, a message that says how to get it.

use std::process::ExitCode;

/// The default address: loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8765";

/// Serves the studio on `listen` until SIGTERM or Ctrl-C; prints the URL with its token
/// on stderr (`cellsafe studio: open URL`) and, with `open`, asks the desktop to open it.
#[cfg(feature = "studio")]
pub fn run(listen: &str, open: bool, max_upload: u64) -> ExitCode {
    let options = cellsafe_studio::Options {
        listen: listen.to_owned(),
        max_upload,
    };
    let ready = |address: std::net::SocketAddr, url: &str, opener: &std::path::Path| {
        eprintln!("cellsafe studio: open {url}");
        if !address.ip().is_loopback() {
            eprintln!(
                "cellsafe studio: warning: listening on {address}, not on loopback: anyone who \
                 can reach it and learns the address above can use the studio, and the \
                 connection is not encrypted"
            );
        }
        eprintln!("cellsafe studio: Ctrl-C stops it and removes its working files");
        if open {
            // the page that forwards to the address, not the address: a command line
            // can be listed by every user of the machine, the page only by its owner
            open_browser(opener);
        }
    };
    match cellsafe_studio::run(&options, ready) {
        Ok(()) => {
            eprintln!("cellsafe studio: stopped");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Asks the desktop to open the file `page`; says so when it cannot.
#[cfg(feature = "studio")]
fn open_browser(page: &std::path::Path) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let mut command = std::process::Command::new(opener);
    command
        .arg(page)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    crate::restore_huge_pages(&mut command);
    let spawned = command.spawn();
    if spawned.is_err() {
        eprintln!("cellsafe studio: could not run `{opener}`: open the address above yourself");
    }
}

/// `cellsafe studio` in a build without it: says how to get it, exit 1.
#[cfg(not(feature = "studio"))]
pub fn run(_listen: &str, _open: bool, _max_upload: u64) -> ExitCode {
    eprintln!(
        "error: this cellsafe was built without the studio; build it with `cargo install \
         --path crates/cellsafe-cli --features studio` (or run `cargo run --release \
         --features studio -- studio` in the checkout)"
    );
    ExitCode::FAILURE
}
