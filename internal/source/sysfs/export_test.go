package sysfs

// Opens is how many files h opened (or tried to).
func (h *Handles) Opens() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.opens
}
