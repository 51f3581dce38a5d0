//! Sprig's arithmetic: integer functions over `cast.ToInt64` (Go's wrapping `int64`), float
//! functions over exact decimal arithmetic as `shopspring/decimal` does, conversions, and ranges.
//!
//! Not for: random numbers (see `random`).

use super::super::value::Value;
use super::args::{self, at_least, err, exact, to_float64, to_int64, Result};
use super::gofmt::format_v;
use super::{FuncEnv, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("add1", add1),
    ("add", add),
    ("sub", sub),
    ("div", div),
    ("mod", modulo),
    ("mul", mul),
    ("add1f", add1f),
    ("addf", addf),
    ("subf", subf),
    ("divf", divf),
    ("mulf", mulf),
    ("biggest", max),
    ("max", max),
    ("min", min),
    ("maxf", maxf),
    ("minf", minf),
    ("ceil", ceil),
    ("floor", floor),
    ("round", round),
    ("atoi", atoi),
    ("int", int),
    ("int64", int64),
    ("float64", float64),
    ("seq", seq),
    ("toDecimal", to_decimal),
    ("until", until),
    ("untilStep", until_step),
];

fn add1(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("add1", a, 1)?;
    Ok(Value::Int(to_int64(&a[0]).wrapping_add(1)))
}

fn add(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    Ok(Value::Int(
        a.iter().fold(0i64, |acc, v| acc.wrapping_add(to_int64(v))),
    ))
}

fn sub(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("sub", a, 2)?;
    Ok(Value::Int(to_int64(&a[0]).wrapping_sub(to_int64(&a[1]))))
}

fn div(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("div", a, 2)?;
    let d = to_int64(&a[1]);
    if d == 0 {
        return err("runtime error: integer divide by zero");
    }
    Ok(Value::Int(to_int64(&a[0]).wrapping_div(d)))
}

fn modulo(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("mod", a, 2)?;
    let d = to_int64(&a[1]);
    if d == 0 {
        return err("runtime error: integer divide by zero");
    }
    Ok(Value::Int(to_int64(&a[0]).wrapping_rem(d)))
}

fn mul(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("mul", a, 1)?;
    Ok(Value::Int(
        a.iter().fold(1i64, |acc, v| acc.wrapping_mul(to_int64(v))),
    ))
}

fn max(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("max", a, 1)?;
    Ok(Value::Int(a.iter().map(to_int64).max().unwrap_or(0)))
}

fn min(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("min", a, 1)?;
    Ok(Value::Int(a.iter().map(to_int64).min().unwrap_or(0)))
}

/// `math.Max` over the arguments; NaN wins as in Go.
fn maxf(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("maxf", a, 1)?;
    let mut acc = to_float64(&a[0]);
    for v in &a[1..] {
        let f = to_float64(v);
        acc = if acc.is_nan() || f.is_nan() {
            f64::NAN
        } else {
            acc.max(f)
        };
    }
    Ok(Value::Float(acc))
}

fn minf(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("minf", a, 1)?;
    let mut acc = to_float64(&a[0]);
    for v in &a[1..] {
        let f = to_float64(v);
        acc = if acc.is_nan() || f.is_nan() {
            f64::NAN
        } else {
            acc.min(f)
        };
    }
    Ok(Value::Float(acc))
}

fn ceil(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("ceil", a, 1)?;
    Ok(Value::Float(to_float64(&a[0]).ceil()))
}

fn floor(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("floor", a, 1)?;
    Ok(Value::Float(to_float64(&a[0]).floor()))
}

/// Sprig's `round(value, places, roundOn=0.5)`.
fn round(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("round", a, 2)?;
    let val = to_float64(&a[0]);
    let places = args::int(&a[1])? as f64;
    let round_on = match a.get(2) {
        Some(v) => args::float(v)?,
        None => 0.5,
    };
    let pow = 10f64.powf(places);
    let digit = pow * val;
    let frac = digit.fract();
    let rounded = if frac >= round_on {
        digit.ceil()
    } else {
        digit.floor()
    };
    Ok(Value::Float(rounded / pow))
}

fn atoi(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("atoi", a, 1)?;
    let text = args::string(&a[0])?;
    Ok(Value::Int(text.parse::<i64>().unwrap_or(0)))
}

fn int(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("int", a, 1)?;
    Ok(Value::Int(to_int64(&a[0])))
}

fn int64(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("int64", a, 1)?;
    Ok(Value::Int(to_int64(&a[0])))
}

fn float64(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("float64", a, 1)?;
    Ok(Value::Float(to_float64(&a[0])))
}

/// `strconv.ParseInt(fmt.Sprint(v), 8, 64)`, 0 on failure.
fn to_decimal(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("toDecimal", a, 1)?;
    let text = format_v(&a[0]);
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(&text)),
    };
    let v = i64::from_str_radix(body, 8)
        .ok()
        .filter(|_| !body.starts_with(['+', '-']))
        .map(|v| if neg { -v } else { v })
        .unwrap_or(0);
    Ok(Value::Int(v))
}

/// The most elements a generated range may have, so a template cannot exhaust memory.
const MAX_RANGE: i64 = 10_000_000;

fn until_step_values(start: i64, stop: i64, step: i64) -> Result<Vec<i64>> {
    let count = if stop < start {
        if step >= 0 {
            return Ok(Vec::new());
        }
        (start as i128 - stop as i128 + (-step as i128) - 1) / (-step as i128)
    } else {
        if step <= 0 {
            return Ok(Vec::new());
        }
        (stop as i128 - start as i128 + step as i128 - 1) / step as i128
    };
    if count > MAX_RANGE as i128 {
        return err(format!("range of {count} elements is too large"));
    }
    Ok((0..count as i64).map(|i| start + i * step).collect())
}

fn ints(values: Vec<i64>) -> Value {
    Value::List(values.into_iter().map(Value::Int).collect())
}

fn until(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("until", a, 1)?;
    let count = args::int(&a[0])?;
    let step = if count < 0 { -1 } else { 1 };
    Ok(ints(until_step_values(0, count, step)?))
}

fn until_step(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("untilStep", a, 3)?;
    let start = args::int(&a[0])?;
    let stop = args::int(&a[1])?;
    let step = args::int(&a[2])?;
    Ok(ints(until_step_values(start, stop, step)?))
}

/// Sprig's `seq`, modelled on the shell's `seq`.
fn seq(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let params = a.iter().map(args::int).collect::<Result<Vec<_>>>()?;
    let (start, end, step) = match params.as_slice() {
        [end] => {
            let step = if *end < 1 { -1 } else { 1 };
            (1, *end, step)
        }
        [start, end] => (*start, *end, if end < start { -1 } else { 1 }),
        [start, step, end] => {
            if end < start && *step > 0 {
                return Ok(Value::String(String::new()));
            }
            (*start, *end, *step)
        }
        _ => return Ok(Value::String(String::new())),
    };
    let increment = if end < start { -1 } else { 1 };
    let values = until_step_values(start, end.wrapping_add(increment), step)?;
    let parts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    Ok(Value::String(parts.join(" ")))
}

/// A decimal number `mantissa × 10^-scale`, the part of `shopspring/decimal` Sprig's float
/// functions rely on: values enter through their shortest decimal form, so `1.2 * 2.4` is `2.88`.
#[derive(Clone, Copy)]
struct Decimal {
    mantissa: i128,
    scale: u32,
}

impl Decimal {
    fn from_f64(f: f64) -> Option<Decimal> {
        if !f.is_finite() {
            return None;
        }
        let text = format!("{f:e}");
        let (mant, exp) = text.split_once('e')?;
        let exp: i32 = exp.parse().ok()?;
        let neg = mant.starts_with('-');
        let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
        let mut mantissa: i128 = digits.parse().ok()?;
        let frac_digits = digits.len() as i32 - 1 - exp;
        let scale = if frac_digits < 0 {
            mantissa = mantissa.checked_mul(10i128.checked_pow((-frac_digits) as u32)?)?;
            0
        } else {
            frac_digits as u32
        };
        Some(Decimal {
            mantissa: if neg { -mantissa } else { mantissa },
            scale,
        })
    }

    fn rescale(self, scale: u32) -> Option<i128> {
        self.mantissa
            .checked_mul(10i128.checked_pow(scale.checked_sub(self.scale)?)?)
    }

    fn add(self, o: Decimal) -> Option<Decimal> {
        let scale = self.scale.max(o.scale);
        Some(Decimal {
            mantissa: self.rescale(scale)?.checked_add(o.rescale(scale)?)?,
            scale,
        })
    }

    fn neg(self) -> Decimal {
        Decimal {
            mantissa: -self.mantissa,
            scale: self.scale,
        }
    }

    fn mul(self, o: Decimal) -> Option<Decimal> {
        Some(Decimal {
            mantissa: self.mantissa.checked_mul(o.mantissa)?,
            scale: self.scale + o.scale,
        })
    }

    /// Division rounded (half away from zero) to 16 places, `decimal.DivisionPrecision`.
    fn div(self, o: Decimal) -> Option<Decimal> {
        const PRECISION: u32 = 16;
        let num = self
            .mantissa
            .checked_mul(10i128.checked_pow(o.scale + PRECISION + 1)?)?;
        let den = o.mantissa.checked_mul(10i128.checked_pow(self.scale)?)?;
        let q = num.checked_div(den)?;
        let rounded = if q >= 0 { (q + 5) / 10 } else { (q - 5) / 10 };
        Some(Decimal {
            mantissa: rounded,
            scale: PRECISION,
        })
    }

    fn to_f64(self) -> f64 {
        format!("{}e-{}", self.mantissa, self.scale)
            .parse()
            .unwrap_or(f64::NAN)
    }
}

#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// Sprig's `execDecimalOp`: folds the operands with decimal arithmetic, falling back to floats
/// when a value is outside what the decimal type holds.
fn decimal_fold(first: f64, rest: &[Value], op: Op) -> Result<Value> {
    let mut acc = first;
    for v in rest {
        let x = to_float64(v);
        if matches!(op, Op::Div) && x == 0.0 {
            return err("decimal division by 0");
        }
        let exact = Decimal::from_f64(acc)
            .zip(Decimal::from_f64(x))
            .and_then(|(a, b)| match op {
                Op::Add => a.add(b),
                Op::Sub => a.add(b.neg()),
                Op::Mul => a.mul(b),
                Op::Div => a.div(b),
            });
        acc = match exact {
            Some(d) => d.to_f64(),
            None => match op {
                Op::Add => acc + x,
                Op::Sub => acc - x,
                Op::Mul => acc * x,
                Op::Div => acc / x,
            },
        };
    }
    Ok(Value::Float(acc))
}

fn add1f(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("add1f", a, 1)?;
    decimal_fold(to_float64(&a[0]), &[Value::Int(1)], Op::Add)
}

fn addf(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    decimal_fold(0.0, a, Op::Add)
}

fn subf(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("subf", a, 1)?;
    decimal_fold(to_float64(&a[0]), &a[1..], Op::Sub)
}

fn mulf(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("mulf", a, 1)?;
    decimal_fold(to_float64(&a[0]), &a[1..], Op::Mul)
}

fn divf(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("divf", a, 1)?;
    decimal_fold(to_float64(&a[0]), &a[1..], Op::Div)
}

#[cfg(test)]
mod tests {
    use super::super::args::parse_go_int;
    use super::super::gofmt::format_float_g;
    use super::*;

    fn env() -> FuncEnv {
        FuncEnv {
            rng_state: 1,
            now_unix: 0,
            lookups: 0,
            run: None,
        }
    }

    #[test]
    fn decimal_products_match_sprig() {
        let v = mulf(
            &mut env(),
            &[
                Value::Float(1.2),
                Value::String("2.4".into()),
                Value::Int(10),
                Value::String("4".into()),
            ],
        )
        .unwrap();
        assert_eq!(v, Value::Float(115.2));
        let v = divf(&mut env(), &[Value::Int(5), Value::Int(4), Value::Int(2)]).unwrap();
        assert_eq!(
            format_float_g(match v {
                Value::Float(f) => f,
                _ => 0.0,
            }),
            "0.625"
        );
        assert_eq!(parse_go_int("0x1F"), Some(31));
    }
}
