//! `offlux explain [CODE]`: what a finding code means, why it matters, and how to fix or silence
//! it; without a code, the list of codes.

use super::exit::{CliError, ExitStatus};
use super::stdout::Output;
use crate::validate::Code;

#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// A finding code (`OFX101`) or its name (`duplicate-object`); without one, every code.
    #[arg(add = super::completions::finding_codes())]
    pub code: Option<String>,
}

pub(super) fn run(args: &ExplainArgs, out: &mut Output) -> Result<ExitStatus, CliError> {
    let Some(text) = &args.code else {
        for code in Code::ALL {
            out.write(&format!(
                "{}  {:<8} {:<24} {}\n",
                code.as_str(),
                code.default_severity().as_str(),
                code.name(),
                code.explanation().meaning
            ))?;
        }
        return Ok(ExitStatus::Success);
    };
    let Some(code) = Code::parse(text) else {
        let known: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        return Err(CliError::usage(
            format!("unknown finding code `{text}`"),
            Some(&format!("known codes: {}", known.join(", "))),
        ));
    };
    let explanation = code.explanation();
    out.write(&format!(
        "{} ({}, {} by default)\n\n{}\n\nWhy it matters: {}\n\nHow to fix it: {}\n\nTo change its \
         severity or turn it off for the repository, set it under `validate.severities` in \
         `.offlux.yaml` (`{}: off`); to silence it on one object, annotate that object with \
         `offlux.io/ignore: {}`.\n",
        code.as_str(),
        code.name(),
        code.default_severity().as_str(),
        explanation.meaning,
        explanation.why,
        explanation.fix,
        code.as_str(),
        code.as_str(),
    ))?;
    Ok(ExitStatus::Success)
}
