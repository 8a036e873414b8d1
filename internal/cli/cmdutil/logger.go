package cmdutil

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Logger writes a long-running command's diagnostics to stderr, one line
// each: "<time> ibdoctor <command>: <msg>", or a JSON object with time and
// msg when JSON is set.
type Logger struct {
	F       *Factory
	Command string
	JSON    bool
	mu      sync.Mutex
}

// Logf formats and writes one line.
func (l *Logger) Logf(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	msg := fmt.Sprintf(format, a...)
	now := l.F.Now().UTC().Format(time.RFC3339)
	if l.JSON {
		b, _ := json.Marshal(map[string]string{"time": now, "msg": msg})
		fmt.Fprintf(l.F.ErrOut, "%s\n", b)
		return
	}
	fmt.Fprintf(l.F.ErrOut, "%s ibdoctor %s: %s\n", now, l.Command, msg)
}
