//! Sprig's date and duration functions over Go's layout strings (`"2006-01-02"`), and the Go
//! `time.Duration` text form shared with Helm's duration helpers.
//!
//! Times are `Value::Int` seconds since the Unix epoch (see the parent module), in UTC: Go's
//! `time.Local` of a render in CI. `dateInZone` takes the zone from the IANA database compiled into
//! offlux (`chrono-tz`), so a render does not depend on the machine's zoneinfo; a zone it does not
//! know is UTC, as Sprig falls back when `time.LoadLocation` fails. `now` is `FuncEnv::now_unix`.
//!
//! Not for: calendars beyond the proleptic Gregorian one Go uses.

use super::super::value::Value;
use super::args::{self, err, exact, Result};
use super::{FuncEnv, FuncError, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("now", now),
    ("ago", ago),
    ("date", date),
    ("date_in_zone", date_in_zone),
    ("dateInZone", date_in_zone),
    ("date_modify", date_modify),
    ("dateModify", date_modify),
    ("must_date_modify", must_date_modify),
    ("mustDateModify", must_date_modify),
    ("duration", duration),
    ("durationRound", duration_round),
    ("htmlDate", html_date),
    ("htmlDateInZone", html_date_in_zone),
    ("toDate", to_date),
    ("mustToDate", must_to_date),
    ("unixEpoch", unix_epoch),
];

pub(crate) use offlux_go::duration::{format_duration, parse_duration, NANOS_PER_SEC};

fn now(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("now", a, 0)?;
    Ok(Value::Int(env.now_unix))
}

/// A date argument: ints are Unix seconds; anything else is "now", as in Sprig.
fn time_arg(env: &FuncEnv, v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        _ => env.now_unix,
    }
}

fn ago(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("ago", a, 1)?;
    let t = time_arg(env, &a[0]);
    Ok(Value::String(format_duration(
        (env.now_unix - t).saturating_mul(NANOS_PER_SEC),
    )))
}

fn date(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("date", a, 2)?;
    let layout = args::string(&a[0])?;
    Ok(Value::String(format_time(layout, time_arg(env, &a[1]))))
}

fn date_in_zone(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("dateInZone", a, 3)?;
    let layout = args::string(&a[0])?;
    let zone = args::string(&a[2])?;
    let t = time_arg(env, &a[1]);
    Ok(Value::String(format_time_in(layout, t, &Zone::at(zone, t))))
}

fn html_date(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("htmlDate", a, 1)?;
    Ok(Value::String(format_time(
        "2006-01-02",
        time_arg(env, &a[0]),
    )))
}

fn html_date_in_zone(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("htmlDateInZone", a, 2)?;
    let zone = args::string(&a[1])?;
    let t = time_arg(env, &a[0]);
    Ok(Value::String(format_time_in(
        "2006-01-02",
        t,
        &Zone::at(zone, t),
    )))
}

/// A zone's offset from UTC and its abbreviation at one instant (what Go's `Time.In(loc)` keeps).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Zone {
    offset_seconds: i64,
    name: String,
}

impl Zone {
    fn utc() -> Zone {
        Zone {
            offset_seconds: 0,
            name: "UTC".into(),
        }
    }

    /// Sprig's `dateInZone` location: `time.LoadLocation(name)`, and UTC when that fails. `""`,
    /// `"UTC"` and `"Local"` are UTC here (a render's local zone is UTC).
    fn at(name: &str, unix: i64) -> Zone {
        use chrono::{Offset as _, TimeZone as _};
        use chrono_tz::OffsetName as _;
        let Ok(tz) = name.parse::<chrono_tz::Tz>() else {
            return Zone::utc();
        };
        let Some(instant) = chrono::DateTime::from_timestamp(unix, 0) else {
            return Zone::utc();
        };
        let offset = tz.offset_from_utc_datetime(&instant.naive_utc());
        let offset_seconds = i64::from(offset.fix().local_minus_utc());
        let name = match offset.abbreviation() {
            Some(abbreviation) => abbreviation.to_owned(),
            // The database spells a zone with no letters by its offset (zic's `%z`: `+04`,
            // `+0530`), and Go prints that name; chrono-tz leaves it out.
            None => {
                let full = numeric_offset(offset_seconds, "", true);
                match (&full[3..5], &full[5..]) {
                    ("00", "00") => full[..3].to_owned(),
                    (_, "00") => full[..5].to_owned(),
                    _ => full,
                }
            }
        };
        Zone {
            offset_seconds,
            name,
        }
    }
}

/// An offset as Go's numeric zone elements print it: `+hh`, then minutes and seconds as the
/// element asks, separated by `separator`.
fn numeric_offset(offset_seconds: i64, separator: &str, with_seconds: bool) -> String {
    let sign = if offset_seconds < 0 { '-' } else { '+' };
    let abs = offset_seconds.unsigned_abs();
    let mut out = format!("{sign}{:02}{separator}{:02}", abs / 3600, abs % 3600 / 60);
    if with_seconds {
        out.push_str(&format!("{separator}{:02}", abs % 60));
    }
    out
}

fn modify(a: &[Value], name: &str) -> Result<std::result::Result<Value, String>> {
    exact(name, a, 2)?;
    let text = args::string(&a[0])?;
    let t = match &a[1] {
        Value::Int(i) => *i,
        other => {
            return Err(FuncError(format!(
                "wrong type for value; expected time.Time; got {}",
                super::gofmt::type_name(other)
            )))
        }
    };
    Ok(parse_duration(text).map(|d| Value::Int(t + d / NANOS_PER_SEC)))
}

fn date_modify(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let t = a.get(1).cloned().unwrap_or_default();
    Ok(modify(a, "dateModify")?.unwrap_or(t))
}

fn must_date_modify(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    modify(a, "mustDateModify")?.map_err(FuncError)
}

/// Sprig's `duration` accepts seconds as a string or an `int64`; a Go `int` (what template
/// literals and decoded data give) or a float counts as 0, as in Go.
fn duration(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("duration", a, 1)?;
    let secs = match &a[0] {
        Value::String(s) => s.parse::<i64>().unwrap_or(0),
        _ => 0,
    };
    Ok(Value::String(format_duration(
        secs.saturating_mul(NANOS_PER_SEC),
    )))
}

fn duration_round(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("durationRound", a, 1)?;
    // Go's switch accepts a string, an int64 (nanoseconds) or a time; a plain int is 0.
    let d: i64 = match &a[0] {
        Value::String(s) => parse_duration(s).unwrap_or(0),
        _ => 0,
    };
    let u = d.unsigned_abs();
    const SECOND: u64 = 1_000_000_000;
    const MINUTE: u64 = 60 * SECOND;
    const HOUR: u64 = 60 * MINUTE;
    const DAY: u64 = 24 * HOUR;
    const MONTH: u64 = 30 * DAY;
    const YEAR: u64 = 365 * DAY;
    let out = if u > YEAR {
        format!("{}y", u / YEAR)
    } else if u > MONTH {
        format!("{}mo", u / MONTH)
    } else if u > DAY {
        format!("{}d", u / DAY)
    } else if u > HOUR {
        format!("{}h", u / HOUR)
    } else if u > MINUTE {
        format!("{}m", u / MINUTE)
    } else if u > SECOND {
        format!("{}s", u / SECOND)
    } else {
        "0s".to_string()
    };
    Ok(Value::String(out))
}

fn unix_epoch(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("unixEpoch", a, 1)?;
    match &a[0] {
        Value::Int(i) => Ok(Value::String(i.to_string())),
        other => err(format!(
            "wrong type for value; expected time.Time; got {}",
            super::gofmt::type_name(other)
        )),
    }
}

fn to_date(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("toDate", a, 2)?;
    let layout = args::string(&a[0])?;
    let text = args::string(&a[1])?;
    // Go returns the zero time on failure: 0001-01-01 00:00:00 UTC.
    Ok(Value::Int(
        parse_time(layout, text).unwrap_or(-62_135_596_800),
    ))
}

fn must_to_date(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("mustToDate", a, 2)?;
    let layout = args::string(&a[0])?;
    let text = args::string(&a[1])?;
    parse_time(layout, text).map(Value::Int).map_err(FuncError)
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar, after Howard
/// Hinnant's civil calendar algorithm. The crate's one calendar: dates and certificates use it.
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// (year, month, day) to days since 1970-01-01, the inverse of [`civil_from_days`].
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// The layout elements Go recognises, longest first where one is a prefix of another.
const CHUNKS: &[&str] = &[
    "January",
    "Jan",
    "Monday",
    "Mon",
    "MST",
    "2006",
    "-07:00:00",
    "-070000",
    "-07:00",
    "-0700",
    "-07",
    "Z07:00:00",
    "Z070000",
    "Z07:00",
    "Z0700",
    "Z07",
    "002",
    "__2",
    "_2",
    "01",
    "02",
    "03",
    "04",
    "05",
    "06",
    "15",
    "PM",
    "pm",
    ".000000000",
    ".999999999",
    ".000000",
    ".999999",
    ".000",
    ".999",
    "1",
    "2",
    "3",
    "4",
    "5",
];

fn next_chunk(layout: &str) -> Option<(usize, &'static str)> {
    for (i, _) in layout.char_indices() {
        let rest = &layout[i..];
        if let Some(c) = CHUNKS.iter().find(|c| rest.starts_with(*c)) {
            // `Jan`/`Mon` only count when not followed by a lower-case letter (`Janet`).
            if matches!(*c, "Jan" | "Mon") {
                let after = rest[c.len()..].chars().next();
                if after.is_some_and(|ch| ch.is_ascii_lowercase()) {
                    continue;
                }
            }
            return Some((i, c));
        }
    }
    None
}

/// `time.Time.Format` for a UTC time given in Unix seconds.
pub(crate) fn format_time(layout: &str, unix: i64) -> String {
    format_time_in(layout, unix, &Zone::utc())
}

/// `time.Time.Format` for a time given in Unix seconds, shown in `zone`.
pub(crate) fn format_time_in(layout: &str, unix: i64, zone: &Zone) -> String {
    let offset = zone.offset_seconds;
    let local = unix.saturating_add(offset);
    let days = local.div_euclid(86_400);
    let secs = local.rem_euclid(86_400);
    let (y, mo, d) = civil_from_days(days);
    let (h, mi, s) = (secs / 3600, secs % 3600 / 60, secs % 60);
    let weekday = (days + 4).rem_euclid(7) as usize;
    let yday = days - days_from_civil(y, 1, 1) + 1;
    let mut out = String::new();
    let mut rest = layout;
    while let Some((i, chunk)) = next_chunk(rest) {
        out.push_str(&rest[..i]);
        rest = &rest[i + chunk.len()..];
        let month = MONTHS[(mo as usize).saturating_sub(1) % 12];
        let h12 = if h % 12 == 0 { 12 } else { h % 12 };
        let piece = match chunk {
            "January" => month.to_string(),
            "Jan" => month[..3].to_string(),
            "Monday" => DAYS[weekday].to_string(),
            "Mon" => DAYS[weekday][..3].to_string(),
            "MST" => zone.name.clone(),
            "2006" => format!("{y:04}"),
            "06" => format!("{:02}", y.rem_euclid(100)),
            "01" => format!("{mo:02}"),
            "1" => mo.to_string(),
            "02" => format!("{d:02}"),
            "2" => d.to_string(),
            "_2" => format!("{d:>2}"),
            "002" => format!("{yday:03}"),
            "__2" => format!("{yday:>3}"),
            "15" => format!("{h:02}"),
            "03" => format!("{h12:02}"),
            "3" => h12.to_string(),
            "04" => format!("{mi:02}"),
            "4" => mi.to_string(),
            "05" => format!("{s:02}"),
            "5" => s.to_string(),
            "PM" => if h >= 12 { "PM" } else { "AM" }.into(),
            "pm" => if h >= 12 { "pm" } else { "am" }.into(),
            "-07:00:00" => numeric_offset(offset, ":", true),
            "-070000" => numeric_offset(offset, "", true),
            "-07:00" => numeric_offset(offset, ":", false),
            "-0700" => numeric_offset(offset, "", false),
            "-07" => numeric_offset(offset, "", false)[..3].to_owned(),
            c if c.starts_with('Z') && offset == 0 => "Z".into(),
            "Z07:00:00" => numeric_offset(offset, ":", true),
            "Z070000" => numeric_offset(offset, "", true),
            "Z07:00" => numeric_offset(offset, ":", false),
            "Z0700" => numeric_offset(offset, "", false),
            "Z07" => numeric_offset(offset, "", false)[..3].to_owned(),
            c if c.starts_with(".0") => format!(".{}", "0".repeat(c.len() - 1)),
            _ => String::new(),
        };
        out.push_str(&piece);
    }
    out.push_str(rest);
    out
}

/// `time.Parse` for the numeric and named elements; zones other than UTC offsets are UTC.
pub(crate) fn parse_time(layout: &str, value: &str) -> std::result::Result<i64, String> {
    let fail = || {
        format!(
            "parsing time {} as {}: cannot parse {} as {}",
            super::gofmt::quote(value),
            super::gofmt::quote(layout),
            super::gofmt::quote(value),
            super::gofmt::quote(layout)
        )
    };
    let (mut y, mut mo, mut d, mut h, mut mi, mut s, mut offset) =
        (1i64, 1u32, 1u32, 0i64, 0i64, 0i64, 0i64);
    let mut pm: Option<bool> = None;
    let mut lay = layout;
    let mut val = value;
    let take_num = |val: &mut &str, min: usize, max: usize| -> Option<i64> {
        let n = val.bytes().take(max).take_while(u8::is_ascii_digit).count();
        if n < min {
            return None;
        }
        let out = val[..n].parse().ok();
        *val = &val[n..];
        out
    };
    while let Some((i, chunk)) = next_chunk(lay) {
        let lit = &lay[..i];
        val = val.strip_prefix(lit).ok_or_else(fail)?;
        lay = &lay[i + chunk.len()..];
        match chunk {
            "2006" => y = take_num(&mut val, 4, 4).ok_or_else(fail)?,
            "06" => y = 1900 + take_num(&mut val, 2, 2).ok_or_else(fail)?,
            "01" => mo = take_num(&mut val, 2, 2).ok_or_else(fail)? as u32,
            "1" => mo = take_num(&mut val, 1, 2).ok_or_else(fail)? as u32,
            "02" => d = take_num(&mut val, 2, 2).ok_or_else(fail)? as u32,
            "2" | "_2" => {
                val = val.trim_start_matches(' ');
                d = take_num(&mut val, 1, 2).ok_or_else(fail)? as u32;
            }
            "15" => h = take_num(&mut val, 1, 2).ok_or_else(fail)?,
            "03" | "3" => h = take_num(&mut val, 1, 2).ok_or_else(fail)?,
            "04" | "4" => mi = take_num(&mut val, 1, 2).ok_or_else(fail)?,
            "05" | "5" => s = take_num(&mut val, 1, 2).ok_or_else(fail)?,
            "PM" | "pm" => {
                let up = val.get(..2).map(str::to_ascii_uppercase).ok_or_else(fail)?;
                pm = Some(up == "PM");
                val = &val[2..];
            }
            "January" | "Jan" => {
                let idx = MONTHS
                    .iter()
                    .position(|m| {
                        let name = if chunk == "Jan" { &m[..3] } else { m };
                        val.starts_with(name)
                    })
                    .ok_or_else(fail)?;
                let name_len = if chunk == "Jan" { 3 } else { MONTHS[idx].len() };
                val = &val[name_len..];
                mo = idx as u32 + 1;
            }
            "Monday" | "Mon" => {
                let idx = DAYS
                    .iter()
                    .position(|dn| val.starts_with(if chunk == "Mon" { &dn[..3] } else { dn }))
                    .ok_or_else(fail)?;
                val = &val[if chunk == "Mon" { 3 } else { DAYS[idx].len() }..];
            }
            "MST" => {
                let n = val.bytes().take_while(u8::is_ascii_uppercase).count();
                val = &val[n..];
            }
            c if c.starts_with('.') => {
                if let Some(rest) = val.strip_prefix('.') {
                    let n = rest.bytes().take_while(u8::is_ascii_digit).count();
                    val = &rest[n..];
                }
            }
            c if c.starts_with('Z') || c.starts_with('-') => {
                if c.starts_with('Z') {
                    if let Some(rest) = val.strip_prefix('Z') {
                        val = rest;
                        continue;
                    }
                }
                let sign = match val.as_bytes().first() {
                    Some(b'+') => 1,
                    Some(b'-') => -1,
                    _ => return Err(fail()),
                };
                val = &val[1..];
                let oh = take_num(&mut val, 2, 2).ok_or_else(fail)?;
                val = val.strip_prefix(':').unwrap_or(val);
                let om = take_num(&mut val, 0, 2).unwrap_or(0);
                offset = sign * (oh * 3600 + om * 60);
            }
            _ => return Err(fail()),
        }
    }
    if val != lay {
        return Err(fail());
    }
    if let Some(is_pm) = pm {
        h = h % 12 + if is_pm { 12 } else { 0 };
    }
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 59 {
        return Err(format!(
            "parsing time {}: day out of range",
            super::gofmt::quote(value)
        ));
    }
    Ok(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s - offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_format_and_parse() {
        assert_eq!(
            format_time("2006-01-02 15:04:05 Mon Jan", 0),
            "1970-01-01 00:00:00 Thu Jan"
        );
        let t = parse_time("2006-01-02", "2017-12-31").unwrap();
        assert_eq!(format_time("02/01/2006", t), "31/12/2017");
    }

    /// Go: `time.Unix(1700000000, 0).In(loc).Format(layout)` with the IANA zones.
    #[test]
    fn zones_show_their_offset_and_abbreviation_as_go_does() {
        let t = 1_700_000_000; // 2023-11-14T22:13:20Z
        let layout = "2006-01-02 15:04:05 MST -07:00 Z07:00 -0700";
        let shown = |zone: &str| format_time_in(layout, t, &Zone::at(zone, t));
        assert_eq!(
            shown("Europe/Paris"),
            "2023-11-14 23:13:20 CET +01:00 +01:00 +0100"
        );
        assert_eq!(
            shown("America/New_York"),
            "2023-11-14 17:13:20 EST -05:00 -05:00 -0500"
        );
        assert_eq!(
            shown("Asia/Kolkata"),
            "2023-11-15 03:43:20 IST +05:30 +05:30 +0530"
        );
        // A zone whose abbreviation is numeric in the database.
        assert_eq!(
            shown("Asia/Dubai"),
            "2023-11-15 02:13:20 +04 +04:00 +04:00 +0400"
        );
        // Summer time of the zone at that instant.
        let july = 1_688_000_000; // 2023-06-29T00:53:20Z
        assert_eq!(
            format_time_in("15:04 MST", july, &Zone::at("Europe/Paris", july)),
            "02:53 CEST"
        );
        // Unknown zones and the local zone are UTC (Sprig's fallback; a render's Local is UTC).
        for zone in ["Mars/Olympus", "europe/paris", "Local", "", "UTC"] {
            assert_eq!(shown(zone), "2023-11-14 22:13:20 UTC +00:00 Z +0000");
        }
    }
}
