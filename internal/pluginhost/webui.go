package pluginhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Declarative plugin widgets for the web UI (xbot's web_ui message). An
// xbot channel plugin sends {"type":"web_ui","ui":[...]}; each entry has
// widget_id, title, slot, refresh and component {type, props}. A new
// declaration replaces the plugin's set. Hearth accepts the declarative
// component types below, bounded in size, and normalises their props so
// that the UI gets text only, never markup. Free-form code (a component
// whose type is html, code, script, iframe, js or jsx: plugin-supplied
// markup or script) is refused: it would run in the owner's browser with
// the owner's API token; a sandboxed-iframe host would be the way to
// offer it.

// Bounds on what a plugin may declare.
const (
	maxWidgetsPerPlugin = 16
	maxWidgetPropsBytes = 32 << 10
	maxWidgetRows       = 100
	maxWidgetColumns    = 12
	maxSparkPoints      = 256
	maxWidgetText       = 4 << 10
	maxCellText         = 256
	maxWidgetTitle      = 120
)

// Widget component types Hearth renders.
const (
	WidgetSparkline = "sparkline"
	WidgetTable     = "table"
	WidgetBadge     = "badge"
	WidgetText      = "text"
	WidgetProgress  = "progress"
	WidgetMetric    = "metric"
)

// codeWidgetTypes are the free-form component types refused with a reason.
var codeWidgetTypes = []string{"html", "code", "script", "iframe", "js", "jsx", "component", "custom"}

// widgetTones are the tones a badge or a table cell may have; another
// tone is dropped.
var widgetTones = []string{"success", "failed", "error", "warning", "running", "info", "neutral"}

var (
	widgetIDPattern = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	colorPattern    = lazyRegexp(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
)

// WebWidget is one plugin widget as the web UI shows it.
type WebWidget struct {
	// Plugin is the plugin's name (its folder id).
	Plugin string `json:"plugin"`
	// ID is the plugin's widget_id.
	ID    string `json:"widget_id"`
	Title string `json:"title,omitempty"`
	// Slot is where the plugin wants it (xbot: right_sidebar,
	// title_bar_right, ...); the web UI shows every slot in its widgets
	// panel.
	Slot string `json:"slot,omitempty"`
	// Refresh is the plugin's refresh hint ("10s"); informational.
	Refresh string `json:"refresh,omitempty"`
	// Type is sparkline, table, badge or text.
	Type  string      `json:"type"`
	Props WidgetProps `json:"props"`
	// Actions is true when clicks on its action cells go to the plugin
	// (web_ui_action); false for a script plugin's text output.
	Actions bool `json:"actions"`
}

// WidgetProps are a widget's normalised props; which fields are set
// depends on the type.
type WidgetProps struct {
	// Data and Color: sparkline (Color is #rgb or #rrggbb, or empty).
	Data  []float64 `json:"data,omitempty"`
	Color string    `json:"color,omitempty"`
	// Columns and Rows: table; each row has one cell per column.
	Columns []string       `json:"columns,omitempty"`
	Rows    [][]WidgetCell `json:"rows,omitempty"`
	// Text, Tone, Pulse, Action: badge (a click sends Action when set);
	// Text: text.
	Text   string `json:"text,omitempty"`
	Tone   string `json:"tone,omitempty"`
	Pulse  bool   `json:"pulse,omitempty"`
	Action string `json:"action,omitempty"`
	// Label, Value, Max: progress (Value of Max, Tone); Label, Text (the
	// value as text), Delta, Tone: metric.
	Label string  `json:"label,omitempty"`
	Value float64 `json:"value,omitempty"`
	Max   float64 `json:"max,omitempty"`
	Delta string  `json:"delta,omitempty"`
}

// WidgetCell is one cell of a table: its text, an optional tone, and an
// action when the cell is {"text", "action"} or is in a column named
// action or actions and not empty (a click sends web_ui_action with that
// action and the row as data).
type WidgetCell struct {
	Text   string `json:"text"`
	Tone   string `json:"tone,omitempty"`
	Action string `json:"action,omitempty"`
}

// xbotWebUIEntry is one entry of a web_ui message.
type xbotWebUIEntry struct {
	WidgetID string `json:"widget_id"`
	// Code (TSX source) and Src (a URL) are xbot's free-form modes,
	// refused.
	Code      string `json:"code"`
	Src       string `json:"src"`
	Title     string `json:"title"`
	Slot      string `json:"slot"`
	Refresh   string `json:"refresh"`
	Component struct {
		Type  string          `json:"type"`
		Props json.RawMessage `json:"props"`
	} `json:"component"`
}

// parseWebUI turns a web_ui message's ui list into widgets of plugin,
// with one error per refused entry.
func parseWebUI(plugin string, ui []json.RawMessage) ([]WebWidget, []error) {
	var out []WebWidget
	var errs []error
	seen := map[string]bool{}
	for i, raw := range ui {
		if len(out) == maxWidgetsPerPlugin {
			errs = append(errs, fmt.Errorf("%d widgets past the first %d refused", len(ui)-i, maxWidgetsPerPlugin))
			break
		}
		var e xbotWebUIEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			errs = append(errs, fmt.Errorf("entry %d: %w", i, err))
			continue
		}
		w, err := parseWidget(plugin, e)
		if err != nil {
			errs = append(errs, fmt.Errorf("widget %q: %w", truncateText(e.WidgetID, 64), err))
			continue
		}
		if seen[w.ID] {
			errs = append(errs, fmt.Errorf("widget %q declared twice; the first kept", w.ID))
			continue
		}
		seen[w.ID] = true
		out = append(out, w)
	}
	return out, errs
}

// errCodeWidget is the reason a free-form component is refused.
var errCodeWidget = errors.New("free-form code components are refused: plugin markup or script would run in the " +
	"owner's browser with the owner's API token; only sparkline, table, badge and text are rendered")

func parseWidget(plugin string, e xbotWebUIEntry) (WebWidget, error) {
	if !widgetIDPattern().MatchString(e.WidgetID) {
		return WebWidget{}, errors.New("widget_id must be 1-64 letters, digits, '.', '_' or '-'")
	}
	if len(e.Component.Props) > maxWidgetPropsBytes {
		return WebWidget{}, fmt.Errorf("props of %d bytes over the limit of %d", len(e.Component.Props), maxWidgetPropsBytes)
	}
	typ := strings.ToLower(e.Component.Type)
	if e.Code != "" || e.Src != "" || slices.Contains(codeWidgetTypes, typ) {
		return WebWidget{}, errCodeWidget
	}
	w := WebWidget{
		Plugin: plugin, ID: e.WidgetID, Title: clip(e.Title, maxWidgetTitle), Slot: clip(e.Slot, 64),
		Refresh: clip(e.Refresh, 16), Type: typ, Actions: true,
	}
	props := e.Component.Props
	if len(props) == 0 || string(props) == "null" {
		props = []byte("{}")
	}
	var err error
	switch typ {
	case WidgetSparkline:
		w.Props, err = sparklineProps(props)
	case WidgetTable:
		w.Props, err = tableProps(props)
	case WidgetBadge, WidgetText:
		w.Props, err = textProps(props, typ == WidgetBadge)
	case WidgetProgress, WidgetMetric:
		w.Props, err = gaugeProps(props, typ == WidgetMetric)
	default:
		return WebWidget{}, fmt.Errorf("component type %q is not one Hearth renders (sparkline, table, badge, text, progress, metric)", truncateText(typ, 32))
	}
	if err != nil {
		return WebWidget{}, fmt.Errorf("%s props: %w", typ, err)
	}
	return w, nil
}

func sparklineProps(raw json.RawMessage) (WidgetProps, error) {
	var p struct {
		Data  []float64 `json:"data"`
		Color string    `json:"color"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return WidgetProps{}, err
	}
	if len(p.Data) > maxSparkPoints {
		p.Data = p.Data[len(p.Data)-maxSparkPoints:]
	}
	if !colorPattern().MatchString(p.Color) {
		p.Color = ""
	}
	return WidgetProps{Data: p.Data, Color: p.Color}, nil
}

func tableProps(raw json.RawMessage) (WidgetProps, error) {
	var p struct {
		Columns []string                     `json:"columns"`
		Rows    []map[string]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return WidgetProps{}, err
	}
	if len(p.Columns) == 0 || len(p.Columns) > maxWidgetColumns {
		return WidgetProps{}, fmt.Errorf("a table needs 1 to %d columns", maxWidgetColumns)
	}
	if len(p.Rows) > maxWidgetRows {
		p.Rows = p.Rows[:maxWidgetRows]
	}
	out := WidgetProps{Columns: make([]string, len(p.Columns)), Rows: make([][]WidgetCell, 0, len(p.Rows))}
	for i, c := range p.Columns {
		out.Columns[i] = clip(c, maxCellText)
	}
	for _, r := range p.Rows {
		row := make([]WidgetCell, len(p.Columns))
		for i, col := range p.Columns {
			row[i] = parseCell(r[col])
			if (col == "action" || col == "actions") && row[i].Text != "" && row[i].Action == "" {
				row[i].Action = clip(row[i].Text, 64)
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// parseCell reads a cell: a string, a number or a boolean, or
// {text, tone}; anything else is shown as empty.
func parseCell(raw json.RawMessage) WidgetCell {
	if len(raw) == 0 {
		return WidgetCell{}
	}
	var c struct {
		Text   any    `json:"text"`
		Tone   string `json:"tone"`
		Action any    `json:"action"`
	}
	if raw[0] == '{' && json.Unmarshal(raw, &c) == nil {
		return WidgetCell{Text: clip(scalarText(c.Text), maxCellText), Tone: tone(c.Tone), Action: clip(scalarText(c.Action), 64)}
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return WidgetCell{}
	}
	return WidgetCell{Text: clip(scalarText(v), maxCellText)}
}

// scalarText is a string, number or boolean as text; "" for anything else.
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64, bool:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return ""
}

func textProps(raw json.RawMessage, badge bool) (WidgetProps, error) {
	var p struct {
		Text   any    `json:"text"`
		Tone   string `json:"tone"`
		Pulse  bool   `json:"pulse"`
		Action any    `json:"action"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return WidgetProps{}, err
	}
	if !badge {
		return WidgetProps{Text: clip(scalarText(p.Text), maxWidgetText)}, nil
	}
	return WidgetProps{Text: clip(scalarText(p.Text), maxCellText), Tone: tone(p.Tone), Pulse: p.Pulse,
		Action: clip(scalarText(p.Action), 64)}, nil
}

// gaugeProps reads a progress ({value, max, label, tone}; value kept in
// 0..max, max 100 by default) or a metric ({label, value, delta, tone}).
func gaugeProps(raw json.RawMessage, metric bool) (WidgetProps, error) {
	var p struct {
		Label string `json:"label"`
		Value any    `json:"value"`
		Max   any    `json:"max"`
		Delta any    `json:"delta"`
		Tone  string `json:"tone"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return WidgetProps{}, err
	}
	out := WidgetProps{Label: clip(p.Label, maxCellText), Tone: tone(p.Tone)}
	if metric {
		out.Text, out.Delta = clip(scalarText(p.Value), maxCellText), clip(scalarText(p.Delta), 32)
		return out, nil
	}
	v, _ := p.Value.(float64)
	m, ok := p.Max.(float64)
	if !ok || m <= 0 {
		m = 100
	}
	out.Value, out.Max = max(0, min(v, m)), m
	return out, nil
}

func tone(t string) string {
	if slices.Contains(widgetTones, t) {
		return t
	}
	return ""
}

// clip cuts s to at most n bytes at a rune boundary and drops invalid
// UTF-8.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Mask returns a copy of w with f applied to every text it shows.
func (w WebWidget) Mask(f func(string) string) WebWidget {
	w.Title = f(w.Title)
	w.Props.Text = f(w.Props.Text)
	w.Props.Label = f(w.Props.Label)
	w.Props.Columns = slices.Clone(w.Props.Columns)
	for i := range w.Props.Columns {
		w.Props.Columns[i] = f(w.Props.Columns[i])
	}
	rows := make([][]WidgetCell, len(w.Props.Rows))
	for i, r := range w.Props.Rows {
		rows[i] = slices.Clone(r)
		for j := range rows[i] {
			rows[i][j].Text = f(rows[i][j].Text)
		}
	}
	if w.Props.Rows != nil {
		w.Props.Rows = rows
	}
	return w
}
