//! Plain aligned tables for terminal output.

/// Formats rows under headers, columns separated by two spaces; trailing spaces trimmed. Each
/// cell is shown on one line with its hidden characters visible (`escape::terminal_line`).
pub(super) fn render(headers: &[&str], rows: &[Vec<String>]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| crate::escape::terminal_line(cell).into_owned())
                .collect()
        })
        .collect();
    let rows = rows.as_slice();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(width) = widths.get_mut(i) {
                *width = (*width).max(cell.chars().count());
            }
        }
    }
    let mut out = String::new();
    let header_row: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
    for row in std::iter::once(&header_row).chain(rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let width = widths.get(i).copied().unwrap_or(0);
            line.push_str(cell);
            if i + 1 < row.len() {
                line.push_str(&" ".repeat(width - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn aligns_columns() {
        let rows = vec![
            vec!["flux-system".to_owned(), "apps".to_owned()],
            vec!["a".to_owned(), "b".to_owned()],
        ];
        assert_eq!(
            super::render(&["NAMESPACE", "NAME"], &rows),
            "NAMESPACE    NAME\nflux-system  apps\na            b\n"
        );
    }

    #[test]
    fn a_cell_stays_on_its_line_with_hidden_characters_shown() {
        let rows = vec![vec!["a\nb\x1b".to_owned()]];
        assert_eq!(super::render(&["NAME"], &rows), "NAME\na\\nb\\u{1b}\n");
    }
}
