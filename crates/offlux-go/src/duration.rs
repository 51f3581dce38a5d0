//! Go's `time.Duration` in text: `time.ParseDuration` and `Duration.String()`, for Sprig's and
//! Helm's duration functions and for the intervals the Flux Operator prints.

pub const NANOS_PER_SEC: i64 = 1_000_000_000;

/// `time.Duration.String()`.
pub fn format_duration(d: i64) -> String {
    if d == 0 {
        return "0s".into();
    }
    let neg = d < 0;
    let u = d.unsigned_abs();
    let sign = if neg { "-" } else { "" };
    let frac = |value: u64, digits: u32| -> String {
        let div = 10u64.pow(digits);
        let int = value / div;
        let rest = value % div;
        if rest == 0 {
            return int.to_string();
        }
        let f = format!("{:0width$}", rest, width = digits as usize);
        format!("{int}.{}", f.trim_end_matches('0'))
    };
    if u < NANOS_PER_SEC as u64 {
        return if u < 1_000 {
            format!("{sign}{u}ns")
        } else if u < 1_000_000 {
            format!("{sign}{}µs", frac(u, 3))
        } else {
            format!("{sign}{}ms", frac(u, 6))
        };
    }
    let secs = frac(u % 60_000_000_000, 9);
    let total_min = u / 60_000_000_000;
    if total_min == 0 {
        return format!("{sign}{secs}s");
    }
    let (h, m) = (total_min / 60, total_min % 60);
    if h == 0 {
        return format!("{sign}{m}m{secs}s");
    }
    format!("{sign}{h}h{m}m{secs}s")
}

/// `time.ParseDuration`.
pub fn parse_duration(text: &str) -> std::result::Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", super::quote(text));
    let (neg, mut s) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: f64 = 0.0;
    while !s.is_empty() {
        let num_len = s
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        let num = &s[..num_len];
        if num.is_empty() || num == "." || num.matches('.').count() > 1 {
            return Err(invalid());
        }
        let value: f64 = num.parse().map_err(|_| invalid())?;
        s = &s[num_len..];
        let unit_len = s
            .char_indices()
            .find(|(_, c)| c.is_ascii_digit() || *c == '.')
            .map(|(i, _)| i)
            .unwrap_or(s.len());
        let unit = &s[..unit_len];
        if unit.is_empty() {
            return Err(format!(
                "time: missing unit in duration {}",
                super::quote(text)
            ));
        }
        let scale: f64 = match unit {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    super::quote(unit),
                    super::quote(text)
                ))
            }
        };
        total += value * scale;
        s = &s[unit_len..];
    }
    if total > i64::MAX as f64 {
        return Err(invalid());
    }
    let n = total.round() as i64;
    Ok(if neg { -n } else { n })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_as_go() {
        assert_eq!(format_duration(61 * NANOS_PER_SEC), "1m1s");
        assert_eq!(format_duration(3600 * NANOS_PER_SEC), "1h0m0s");
        assert_eq!(format_duration(1_500_000), "1.5ms");
        assert_eq!(parse_duration("1m30s"), Ok(90 * NANOS_PER_SEC));
        assert!(parse_duration("nope").is_err());
    }
}
