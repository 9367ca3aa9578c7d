//! What the subcommands share, and the only module of `cli/` they import: no subcommand
//! imports another (tests/layers.rs). Errors and exit codes, the flag groups, output,
//! input (files, oracles, SUTs), traces of a program, progress lines and signals.

mod error;
mod flags;
mod input;
mod output;
mod reproducer;
pub mod signals;
mod traces;

pub(in crate::cli) use error::EXIT_CODES;
pub use error::{campaign_error, CliError, Exit};
pub use flags::{BoundArgs, DetectorArgs, ExplorerArg, PictureArgs};
pub use input::{catalogued, ground_truth, load, load_input, load_with, on_machine, oracle, parse_pair, subject, subject_error};
pub use output::{capped, emit, print_json, write_report, StatusClock};
pub use reproducer::{choose, reproducer_text, thread_program, write_reproducer, Chosen};
pub use traces::{each_trace, Visit, Which, DIALECTS};
