//! `slugify`: gosimple/slug's `Make` with the operator's settings (at most 63 bytes, cut at a
//! word boundary). Non-ASCII letters are transliterated only for the accented Latin letters;
//! other non-ASCII characters become separators, where upstream's unidecode tables would spell
//! them out.

const MAX_LENGTH: usize = 63;

pub fn make(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.trim().chars() {
        match c {
            '"' | '\'' | '\u{2019}' => {}
            '&' => out.push_str("and"),
            '@' => out.push_str("at"),
            '\u{2012}'..='\u{2015}' => out.push('-'),
            c if c.is_ascii() => out.push(c),
            c => match transliterate(c) {
                Some(ascii) => out.push_str(ascii),
                None => out.push('-'),
            },
        }
    }
    let lowered = out.to_ascii_lowercase();
    let mut slug = String::with_capacity(lowered.len());
    for c in lowered.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            c
        } else {
            '-'
        };
        if c == '-' && slug.ends_with('-') {
            continue;
        }
        slug.push(c);
    }
    let slug = slug.trim_matches(|c| c == '-' || c == '_').to_owned();
    smart_truncate(slug)
}

fn smart_truncate(slug: String) -> String {
    if slug.len() <= MAX_LENGTH {
        return slug;
    }
    let bytes = slug.as_bytes();
    for i in (0..=MAX_LENGTH).rev() {
        if bytes.get(i) == Some(&b'-') {
            return slug[..i].to_owned();
        }
    }
    slug[..MAX_LENGTH].to_owned()
}

fn transliterate(c: char) -> Option<&'static str> {
    Some(match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' | 'Ā' | 'Ă' | 'Ą' => "A",
        'æ' => "ae",
        'Æ' => "AE",
        'ç' | 'ć' | 'č' => "c",
        'Ç' | 'Ć' | 'Č' => "C",
        'ď' | 'đ' => "d",
        'Ď' | 'Đ' => "D",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => "e",
        'È' | 'É' | 'Ê' | 'Ë' | 'Ē' | 'Ę' | 'Ě' => "E",
        'ğ' => "g",
        'Ğ' => "G",
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'ı' => "i",
        'Ì' | 'Í' | 'Î' | 'Ï' | 'Ī' | 'İ' => "I",
        'ł' | 'ľ' => "l",
        'Ł' | 'Ľ' => "L",
        'ñ' | 'ń' | 'ň' => "n",
        'Ñ' | 'Ń' | 'Ň' => "N",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
        'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' | 'Ō' | 'Ő' => "O",
        'œ' => "oe",
        'Œ' => "OE",
        'ř' => "r",
        'Ř' => "R",
        'ś' | 'š' | 'ş' => "s",
        'Ś' | 'Š' | 'Ş' => "S",
        'ß' => "ss",
        'ť' | 'ţ' => "t",
        'Ť' | 'Ţ' => "T",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => "u",
        'Ù' | 'Ú' | 'Û' | 'Ü' | 'Ū' | 'Ů' | 'Ű' => "U",
        'ý' | 'ÿ' => "y",
        'Ý' | 'Ÿ' => "Y",
        'ź' | 'ż' | 'ž' => "z",
        'Ź' | 'Ż' | 'Ž' => "Z",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::make;

    #[test]
    fn slugs_follow_gosimple() {
        assert_eq!(make(">=1.0.0-rc.0"), "1-0-0-rc-0");
        assert_eq!(make("Hello World & Friends"), "hello-world-and-friends");
        assert_eq!(make("Ünïcödé"), "unicode");
        let long = "word-".repeat(20);
        assert_eq!(make(&long).len(), 59);
    }
}
