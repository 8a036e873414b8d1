package hubstore

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// The history keeps a node's port rates per step as one row of
// rate_steps: the id of the node's list of ports in port_sets (stored
// once for every node with the same ports) and the rates packed in a
// blob. Version 2 stored a JSON document per row, port names and all:
// about 600 bytes for ten ports, against about 100 packed.

// ratesFormat is the first byte of a packed blob.
const ratesFormat = 1

// packRates appends ports' rates to buf: the format byte, then per port
// in order a byte whose bits 0, 1 and 2 say that the receive, transmit
// and error rates are not zero, and each rate that is not as a
// little-endian float32 (7 significant digits, ample for a chart). An
// idle port takes one byte.
func packRates(buf []byte, ports []PortRate) []byte {
	buf = append(buf, ratesFormat)
	for _, p := range ports {
		var flags byte
		vals := [3]float64{p.RcvBps, p.XmitBps, p.ErrPerS}
		for i, v := range vals {
			if v != 0 {
				flags |= 1 << i
			}
		}
		buf = append(buf, flags)
		for i, v := range vals {
			if flags&(1<<i) != 0 {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(v)))
			}
		}
	}
	return buf
}

// unpackRates reads a blob of packRates for the ports named.
func unpackRates(names []string, blob []byte) ([]PortRate, error) {
	if len(blob) == 0 || blob[0] != ratesFormat {
		return nil, errors.New("packed rates of an unknown format")
	}
	out := make([]PortRate, len(names))
	i := 1
	for k, name := range names {
		if i >= len(blob) {
			return nil, fmt.Errorf("packed rates end at port %d of %d", k+1, len(names))
		}
		flags := blob[i]
		i++
		var vals [3]float64
		for j := range vals {
			if flags&(1<<j) == 0 {
				continue
			}
			if i+4 > len(blob) {
				return nil, fmt.Errorf("packed rates end within port %d of %d", k+1, len(names))
			}
			vals[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(blob[i:])))
			i += 4
		}
		out[k] = PortRate{Port: name, RcvBps: vals[0], XmitBps: vals[1], ErrPerS: vals[2]}
	}
	if i != len(blob) {
		return nil, fmt.Errorf("packed rates hold %d bytes more than %d ports", len(blob)-i, len(names))
	}
	return out, nil
}

// setKey is the port_sets text of ports: the JSON list of their names.
func setKey(ports []PortRate) string {
	names := make([]string, len(ports))
	for i, p := range ports {
		names[i] = p.Port
	}
	b, _ := json.Marshal(names)
	return string(b)
}

// packedVersion is the schema version that brought port_sets and
// rate_steps.
const packedVersion = 3

// loadPortSets reads port_sets (a few rows: one per distinct list of
// ports in the fleet) of a database at schema version.
func (s *Store) loadPortSets(ctx context.Context, version int) error {
	s.setsMu.Lock()
	defer s.setsMu.Unlock()
	s.setID, s.setList = map[string]int64{}, map[int64][]string{}
	if version < packedVersion {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, ports FROM port_sets`)
	if err != nil {
		return fmt.Errorf("%s: %w", s.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var doc string
		if err := rows.Scan(&id, &doc); err != nil {
			return fmt.Errorf("%s: %w", s.path, err)
		}
		var names []string
		if err := json.Unmarshal([]byte(doc), &names); err != nil {
			return fmt.Errorf("%s: %w: port set %d: %v", s.path, errCorrupt, id, err)
		}
		s.setID[doc], s.setList[id] = id, names
	}
	return rows.Err()
}

// portSet returns the id of ports' list of names, adding the list in tx
// when it is new (to *added, which Commit gives addSets once tx is
// committed).
func (s *Store) portSet(ctx context.Context, tx *sql.Tx, ports []PortRate, added *map[string]int64) (int64, error) {
	key := setKey(ports)
	s.setsMu.Lock()
	id, ok := s.setID[key]
	s.setsMu.Unlock()
	if ok {
		return id, nil
	}
	if id, ok := (*added)[key]; ok {
		return id, nil
	}
	id, err := insertSet(ctx, tx, key)
	if err != nil {
		return 0, err
	}
	if *added == nil {
		*added = map[string]int64{}
	}
	(*added)[key] = id
	return id, nil
}

// insertSet adds a list of ports to port_sets (or finds it there).
func insertSet(ctx context.Context, tx *sql.Tx, key string) (int64, error) {
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO port_sets (ports) VALUES (?)`, key); err != nil {
		return 0, err
	}
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM port_sets WHERE ports = ?`, key).Scan(&id)
	return id, err
}

// addSets adds the lists of ports a committed transaction stored.
func (s *Store) addSets(added map[string]int64) {
	if len(added) == 0 {
		return
	}
	s.setsMu.Lock()
	defer s.setsMu.Unlock()
	for key, id := range added {
		var names []string
		json.Unmarshal([]byte(key), &names)
		s.setID[key], s.setList[id] = id, names
	}
}

// setPorts returns the ports of set id.
func (s *Store) setPorts(ctx context.Context, id int64) ([]string, error) {
	s.setsMu.Lock()
	names, ok := s.setList[id]
	s.setsMu.Unlock()
	if ok {
		return names, nil
	}
	var doc string
	if err := s.db.QueryRowContext(ctx, `SELECT ports FROM port_sets WHERE id = ?`, id).Scan(&doc); err != nil {
		return nil, fmt.Errorf("port set %d: %w", id, err)
	}
	if err := json.Unmarshal([]byte(doc), &names); err != nil {
		return nil, fmt.Errorf("port set %d: %w", id, err)
	}
	return names, nil
}
