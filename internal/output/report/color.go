package report

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// Style applies ANSI colors when enabled (a terminal without NO_COLOR).
type Style struct{ Enabled bool }

func (s Style) wrap(code, text string) string {
	if !s.Enabled || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// Bold renders text in bold.
func (s Style) Bold(text string) string { return s.wrap("1", text) }

// Dim renders text faint.
func (s Style) Dim(text string) string { return s.wrap("2", text) }

// Green renders text green.
func (s Style) Green(text string) string { return s.wrap("32", text) }

// Severity colors text by a severity: critical red, warning yellow, info
// cyan.
func (s Style) Severity(sev finding.Severity, text string) string {
	switch sev {
	case finding.Critical:
		return s.wrap("1;31", text)
	case finding.Warning:
		return s.wrap("33", text)
	case finding.Info:
		return s.wrap("36", text)
	}
	return text
}
