//! DynamoDB numbers: parsed to what identifies their value (sign,
//! significant digits, exponent), for the 38-digit and range rules, sizes,
//! key identity, and reading into floats without silent rounding.

use std::str::FromStr;

use super::MAX_NUMBER_DIGITS;
use crate::describe::shown;

/// A DynamoDB number, reduced to what identifies its value.
pub(super) struct Decimal {
    negative: bool,
    /// Significant digits (ASCII), no leading or trailing zeros; empty for zero.
    digits: Vec<u8>,
    /// The power of ten of the first significant digit: value =
    /// d.ddd × 10^adjusted.
    adjusted: i64,
}

impl Decimal {
    /// Stored size, measured against DynamoDB Local (see
    /// `tests/limits_local.rs`): the digits in base-100 pairs aligned on the
    /// decimal point, plus one byte of exponent, plus one for a negative
    /// number shorter than 20 pairs; zero is one byte. The documented "one
    /// byte per two significant digits plus one" is this rounded down.
    pub(super) fn size(&self) -> usize {
        let Some(len) = i64::try_from(self.digits.len()).ok().filter(|&l| l > 0) else {
            return 1; // zero
        };
        let last = self.adjusted - (len - 1);
        let pairs = usize::try_from(self.adjusted.div_euclid(2) - last.div_euclid(2) + 1)
            .unwrap_or(usize::MAX / 2);
        1 + pairs + usize::from(self.negative && pairs < 20)
    }

    /// One spelling per value, to find duplicates in number sets (`1`,
    /// `1.0`, `1e0` and `+01` are one value to DynamoDB).
    pub(super) fn canonical(&self) -> String {
        if self.digits.is_empty() {
            return "0".to_owned();
        }
        let sign = if self.negative { "-" } else { "" };
        let digits = String::from_utf8_lossy(&self.digits);
        format!("{sign}{digits}e{}", self.adjusted)
    }
}

/// Parses a number the way DynamoDB reads it (Java's `BigDecimal`, ASCII
/// digits only): an optional sign, digits with an optional point, an
/// optional exponent of at most ten digits after leading zeros that fits a
/// 32-bit integer; at most 38 significant digits, magnitude within
/// 1E-130 ..= 9.99…E+125.
pub(super) fn parse_decimal(n: &str) -> std::result::Result<Decimal, String> {
    let d = parse_decimal_syntax(n)?;
    let significant = d.digits.len();
    if significant > MAX_NUMBER_DIGITS {
        return Err(format!(
            "has {significant} significant digits, more than DynamoDB's {MAX_NUMBER_DIGITS}"
        ));
    }
    if significant > 0 && d.adjusted > 125 {
        return Err(format!(
            "is {}, larger in magnitude than DynamoDB's 1E+126",
            shown(n)
        ));
    }
    if significant > 0 && d.adjusted < -130 {
        return Err(format!(
            "is {}, smaller in magnitude than DynamoDB's 1E-130",
            shown(n)
        ));
    }
    Ok(d)
}

/// The syntax of [`parse_decimal`] without DynamoDB's limits on digits and
/// magnitude.
fn parse_decimal_syntax(n: &str) -> std::result::Result<Decimal, String> {
    let not_a_number = || format!("is not a number: {:?}", shown(n));
    let bytes = n.as_bytes();
    let mut i = 0;
    let negative = bytes.first() == Some(&b'-');
    if matches!(bytes.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    let mut digits: Vec<u8> = Vec::new();
    let mut int_len = 0usize;
    let mut seen_dot = false;
    while let Some(&c) = bytes.get(i) {
        match c {
            b'0'..=b'9' => {
                digits.push(c);
                if !seen_dot {
                    int_len += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            _ => break,
        }
        i += 1;
    }
    if digits.is_empty() {
        return Err(not_a_number());
    }
    let frac_len = digits.len() - int_len;
    let mut exp: i64 = 0;
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let rest = n.get(i + 1..).unwrap_or("");
        let unsigned = rest.strip_prefix(['-', '+']).unwrap_or(rest);
        if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
            return Err(not_a_number());
        }
        let significant = unsigned.trim_start_matches('0');
        if significant.len() > 10 {
            return Err(format!("{}, its exponent is out of range", not_a_number()));
        }
        let magnitude: i64 = if significant.is_empty() {
            0
        } else {
            significant.parse().map_err(|_| not_a_number())?
        };
        exp = if rest.starts_with('-') {
            -magnitude
        } else {
            magnitude
        };
        // `BigDecimal`: the exponent and the scale (fraction digits minus
        // exponent) are 32-bit integers.
        let scale = i64::try_from(frac_len).unwrap_or(i64::MAX) - exp;
        if i32::try_from(exp).is_err() || i32::try_from(scale).is_err() {
            return Err(format!("{}, its exponent is out of range", not_a_number()));
        }
        i = bytes.len();
    }
    if i != bytes.len() {
        return Err(not_a_number());
    }
    let Some(first) = digits.iter().position(|&d| d != b'0') else {
        return Ok(Decimal {
            negative: false,
            digits: Vec::new(),
            adjusted: 0,
        });
    };
    let last = digits.iter().rposition(|&d| d != b'0').unwrap_or(first);
    // value = d.ddd × 10^adjusted
    let adjusted = int_len as i64 - first as i64 - 1 + exp;
    digits.truncate(last + 1);
    digits.drain(..first);
    Ok(Decimal {
        negative,
        digits,
        adjusted,
    })
}

/// The stored size of `n` ([`Decimal::size`]) when it is a plain integer
/// (an optional `-`, then 1 to 38 digits without a leading zero, or `0`):
/// what serializers write for every integer type, sized without parsing
/// into a [`Decimal`]. `None` for any other spelling.
fn plain_integer_size(n: &str) -> Option<usize> {
    let (negative, digits) = match n.strip_prefix('-') {
        Some(rest) => (true, rest.as_bytes()),
        None => (false, n.as_bytes()),
    };
    if n == "0" {
        return Some(1);
    }
    let (&first, _) = digits.split_first()?;
    if first == b'0' || digits.len() > MAX_NUMBER_DIGITS || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // value = d.ddd × 10^(len - 1); the last significant digit's power of
    // ten is the count of trailing zeros.
    let len = digits.len();
    let trailing = digits.iter().rev().take_while(|&&d| d == b'0').count();
    let pairs = (len - 1) / 2 - trailing / 2 + 1;
    Some(1 + pairs + usize::from(negative && pairs < 20))
}

/// Checks `n` as [`parse_decimal`] does and returns its stored size
/// ([`Decimal::size`]).
pub(super) fn checked_number_size(n: &str) -> std::result::Result<usize, String> {
    match plain_integer_size(n) {
        Some(size) => Ok(size),
        None => parse_decimal(n).map(|d| d.size()),
    }
}

/// A DynamoDB number string's count of significant digits (the tests' view
/// of [`parse_decimal`]).
///
/// Accepts an optional sign, digits with an optional fraction, and an optional
/// exponent; rejects `NaN`, infinities, more than 38 significant digits,
/// magnitudes outside 1E-130 ..= 9.99…E+125 and exponents DynamoDB cannot
/// read.
#[cfg(test)]
fn parse_number(n: &str) -> std::result::Result<usize, String> {
    parse_decimal(n).map(|d| d.digits.len())
}

/// Checks a DynamoDB number string as [`parse_decimal`] does (a plain
/// integer without parsing it).
///
/// # Errors
/// What [`parse_decimal`] says is wrong with `n`.
pub(crate) fn check_number(n: &str) -> std::result::Result<(), String> {
    checked_number_size(n).map(|_| ())
}

/// One spelling per numeric value (`1`, `1.0`, `1E0` and `01` give the same
/// string), or `None` when `n` is not a number DynamoDB accepts.
pub(crate) fn canonical_number(n: &str) -> Option<String> {
    parse_decimal(n).ok().map(|d| d.canonical())
}

/// A float type numbers are read into (see [`read_float`]).
pub(crate) trait Float: Copy + FromStr + std::fmt::Display + std::fmt::LowerExp {
    /// Significant decimal digits every normal value of the type keeps.
    const DIGITS: usize;
    /// The type's name, for messages.
    const NAME: &'static str;
    /// Neither infinite nor NaN.
    fn finite(self) -> bool;
    /// Not zero, subnormal, infinite or NaN.
    fn normal(self) -> bool;
}

macro_rules! float {
    ($($ty:ident),*) => {$(
        impl Float for $ty {
            const DIGITS: usize = $ty::DIGITS as usize;
            const NAME: &'static str = stringify!($ty);
            fn finite(self) -> bool {
                self.is_finite()
            }
            fn normal(self) -> bool {
                self.is_normal()
            }
        }
    )*};
}

float!(f64, f32);

/// Reads the number `n` into the float type `F` only when no digit is lost.
///
/// The rule: with `d` the number's significant digits (trailing zeros
/// dropped), the nearest `F`, rounded back to `d` significant digits, must
/// be the number itself. So every number of at most 15 significant digits
/// (`f32`: 6) within the type's normal range reads, as does every float's
/// shortest representation (what this crate writes) and every integer the
/// type holds exactly (`2^60`); `9007199254740993` (2^53 + 1, which `f64`
/// holds as ...992), a 39-digit integer, or `0.1234567890123456789` into
/// `f64` do not, nor do numbers beyond the type's range or lost in its
/// underflow.
///
/// On error returns what to say was expected instead.
pub(crate) fn read_float<F: Float>(n: &str) -> std::result::Result<F, String> {
    let plain = || F::NAME.to_owned();
    let Ok(d) = parse_decimal_syntax(n) else {
        return Err(plain());
    };
    let Ok(x) = n.parse::<F>() else {
        return Err(plain());
    };
    if !x.finite() {
        return Err(format!("a number within the range of {}", F::NAME));
    }
    if d.digits.is_empty() || (d.digits.len() <= F::DIGITS && x.normal()) {
        return Ok(x);
    }
    let back = format!("{:.*e}", d.digits.len() - 1, x);
    match parse_decimal_syntax(&back) {
        Ok(b) if b.negative == d.negative && b.adjusted == d.adjusted && b.digits == d.digits => {
            Ok(x)
        }
        _ => {
            let nearest = if (-7..21).contains(&d.adjusted) {
                x.to_string()
            } else {
                format!("{x:e}")
            };
            Err(format!(
                "{} without rounding (the nearest {} is {nearest})",
                F::NAME,
                F::NAME
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain-integer size is the parser's, for every integer spelling
    /// serializers write (edges of every width, trailing zeros, 38 digits)
    /// and it declines every other spelling.
    #[test]
    fn plain_integers_are_sized_as_the_parser_sizes_them() {
        let mut spellings: Vec<String> = vec![
            "0".into(),
            "-0".into(),
            "1".into(),
            "-1".into(),
            "10".into(),
            "-100".into(),
            "1000000000000000000000000000000000000".into(),
            "9".repeat(38),
            format!("-{}", "9".repeat(38)),
            format!("1{}", "0".repeat(37)),
        ];
        for v in [
            i128::MIN,
            i128::MAX,
            i64::MIN.into(),
            i64::MAX.into(),
            u64::MAX.into(),
            -1_000_000,
            1_020_300,
        ] {
            spellings.push(v.to_string());
        }
        for digits in 1..=38 {
            for lead in ["1", "5", "9"] {
                for tail in ["0", "7"] {
                    let body = format!("{lead}{}", tail.repeat(digits - 1));
                    spellings.push(body.clone());
                    spellings.push(format!("-{body}"));
                }
            }
        }
        for n in &spellings {
            let parsed = parse_decimal(n).map(|d| d.size());
            assert_eq!(checked_number_size(n), parsed, "{n}");
            if let Some(size) = plain_integer_size(n) {
                assert_eq!(Ok(size), parsed, "{n}");
            }
        }
        for other in [
            "",
            "-",
            "01",
            "-01",
            "+1",
            "1.0",
            "1e3",
            " 1",
            "1 ",
            "١",
            &"9".repeat(39),
            &u128::MAX.to_string(),
        ] {
            assert_eq!(plain_integer_size(other), None, "{other:?}");
            assert_eq!(
                checked_number_size(other),
                parse_decimal(other).map(|d| d.size()),
                "{other:?}"
            );
        }
    }

    #[test]
    fn numbers() {
        let thirty_eight = "9".repeat(38);
        for (n, digits) in [
            ("0", 0),
            ("-0.000", 0),
            ("123.4500", 5),
            ("00120", 2),
            ("1e5", 1),
            (thirty_eight.as_str(), 38),
            ("9.9e125", 2),
            ("1e-130", 1),
            // Exponents that fit 32 bits (after leading zeros); see below.
            ("0e2147483647", 0),
            ("1e0000000000000005", 1),
            ("1e+0000000000000000000000000000000000000001", 1),
        ] {
            assert_eq!(parse_number(n), Ok(digits), "{n}");
        }
        for n in [
            "NaN",
            "inf",
            "-",
            "1.2.3",
            "1e",
            "1e126",
            "1e-131",
            "1e99999999999999999999",
            // DynamoDB reads numbers with Java's BigDecimal: the exponent
            // must fit 32 bits (after leading zeros), even for zero.
            "0e99999999999999999999",
            "0e2147483648",
            "0e-2147483648",
            // ASCII digits only (DynamoDB Local also takes other Unicode
            // digits).
            "\u{661}",
        ] {
            assert!(parse_number(n).is_err(), "{n:?}");
        }
        assert!(
            parse_number(&"9".repeat(39))
                .unwrap_err()
                .contains("39 significant")
        );
        assert!(
            parse_number("1e2147483648")
                .unwrap_err()
                .contains("exponent")
        );
        // A long number is cut in messages (a serialized `1e300_f64`).
        assert_eq!(
            parse_number(&format!("1{}", "0".repeat(300))).unwrap_err(),
            format!(
                "is 1{}…, larger in magnitude than DynamoDB's 1E+126",
                "0".repeat(47)
            )
        );
    }

    /// `check_number` accepts and refuses exactly what the parser does,
    /// around its plain-integer shortcut.
    #[test]
    fn check_number_agrees_with_the_parser() {
        let forty = format!("1{}", "0".repeat(38));
        let thirty_nine = "9".repeat(39);
        for n in [
            "0",
            "-0",
            "+1",
            "01",
            "-01",
            "",
            "-",
            "7",
            "-7",
            "1e3",
            "1.50",
            forty.as_str(),
            thirty_nine.as_str(),
            "\u{661}",
            " 1",
            "1 ",
        ] {
            assert_eq!(check_number(n).is_ok(), parse_decimal(n).is_ok(), "{n:?}");
        }
        assert!(
            check_number(&forty).is_ok(),
            "trailing zeros are not significant"
        );
        assert!(check_number(&thirty_nine).is_err());
    }
}
