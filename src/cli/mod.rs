//! Command-line interface: clap commands, one file per verb, and output formats. The only module that prints, reads the environment or exits.
