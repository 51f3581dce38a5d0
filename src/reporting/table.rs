//! Plain aligned tables for terminal output.

/// Formats rows under headers, columns separated by two spaces; trailing spaces trimmed. Each
/// cell is shown on one line with its hidden characters visible (`escape::terminal_line`).
pub fn render(headers: &[&str], rows: &[Vec<String>]) -> String {
    render_styled(headers, rows, |_, _| None)
}

/// [`render`], each body cell that `style` (given the column and the cell's text) names an ANSI
/// style for written in it; the padding stays outside, so columns line up on a terminal.
pub fn render_styled(
    headers: &[&str],
    rows: &[Vec<String>],
    style: impl Fn(usize, &str) -> Option<&'static str>,
) -> String {
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
    for (r, row) in std::iter::once(&header_row).chain(rows).enumerate() {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let width = widths.get(i).copied().unwrap_or(0);
            match style(i, cell).filter(|_| r > 0) {
                Some(code) => {
                    line.push_str(code);
                    line.push_str(cell);
                    line.push_str(super::paint::RESET);
                }
                None => line.push_str(cell),
            }
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
    fn a_styled_cell_keeps_its_column_aligned() {
        let rows = vec![
            vec!["PASS".to_owned(), "a".to_owned()],
            vec!["FAIL".to_owned(), "b".to_owned()],
        ];
        let style = |col: usize, cell: &str| (col == 0 && cell == "FAIL").then_some("<red>");
        assert_eq!(
            super::render_styled(&["RESULT", "NAME"], &rows, style),
            "RESULT  NAME\nPASS    a\n<red>FAIL\u{1b}[0m    b\n"
        );
    }

    #[test]
    fn a_cell_stays_on_its_line_with_hidden_characters_shown() {
        let rows = vec![vec!["a\nb\x1b".to_owned()]];
        assert_eq!(super::render(&["NAME"], &rows), "NAME\na\\nb\\u{1b}\n");
    }
}
