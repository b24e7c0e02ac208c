package main

import (
	"io"
	"strings"

	"github.com/hearth-agent/hearth/internal/channel/terminal"
)

// table lays text out in columns padded to their width on a terminal:
// a CJK character takes two columns there, where text/tabwriter counts
// one and misaligns a row with a Chinese name. Cells are shown on one
// line (terminal.SanitizeLine): a provider's model list is not ours.
type table struct {
	indent string
	rows   []tableRow
}

// tableRow is a row of cells, or a line of its own (a group's heading)
// that no column is measured by.
type tableRow struct {
	cells []string
	line  bool
}

// row adds a row of cells.
func (t *table) row(cells ...string) {
	clean := make([]string, len(cells)) // not in place: cells may be the caller's (a shared header)
	for i, c := range cells {
		clean[i] = terminal.SanitizeLine(c)
	}
	t.rows = append(t.rows, tableRow{cells: clean})
}

// line adds a line of its own, written as it is, without the indent.
func (t *table) line(s string) {
	t.rows = append(t.rows, tableRow{cells: []string{terminal.SanitizeLine(s)}, line: true})
}

// write writes the table: each column as wide as its widest cell, two
// spaces between columns, no padding after the last.
func (t *table) write(w io.Writer) error {
	var widths []int
	for _, r := range t.rows {
		if r.line {
			continue
		}
		for i, c := range r.cells {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], terminal.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		if r.line {
			b.WriteString(r.cells[0] + "\n")
			continue
		}
		b.WriteString(t.indent)
		for i, c := range r.cells {
			b.WriteString(c)
			if i < len(r.cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-terminal.StringWidth(c)+2))
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
