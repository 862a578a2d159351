package inplace

import (
	"time"
	"unicode/utf8"
)

// stateView is the common form of the state annotation, the one the
// controller writes after an in-place update of images, read without building
// a State: an object with the members revision, updateTimestamp,
// lastContainerStatuses (container name to {"imageID": ...}),
// updateEnvFromMetadata, updateResources and updateImages, plain strings (no
// escape), each member and each container name at most once. Such a text has
// no next batch. scanState reads it without allocating; the strings are
// substrings of the annotation.
type stateView struct {
	revision              string
	updateTimestamp       time.Time
	updateEnvFromMetadata bool
	updateResources       bool
	updateImages          bool
	// hasStatuses tells whether the lastContainerStatuses member is there
	// (json.Unmarshal then makes a map, even an empty one).
	hasStatuses bool
	// nStatuses is the number of lastContainerStatuses records, at most
	// maxViewStatuses (a text with more is not read by scanState).
	nStatuses int
	statuses  [maxViewStatuses]statusRecord
}

// maxViewStatuses is the most lastContainerStatuses records a stateView
// holds: one per container whose image an update changed.
const maxViewStatuses = 8

// statusRecord is one lastContainerStatuses record.
type statusRecord struct{ name, imageID string }

// scanState reads v into sv if v is in the form of stateView: what it reads
// is exactly what json.Unmarshal reads from such text. For anything else
// (other members, other spellings, escapes, null where a value is expected,
// more than maxViewStatuses records, malformed text) it returns false, and
// the callers run json.Unmarshal, which also words the errors.
func scanState(v string, sv *stateView) bool {
	p := stateScanner{s: v}
	if !p.byte('{') {
		return false
	}
	var seen [6]bool
	if !p.peek('}') {
		for {
			key, ok := p.str()
			if !ok || !p.byte(':') {
				return false
			}
			i := -1
			switch key {
			case "revision":
				i = 0
				sv.revision, ok = p.str()
			case "updateTimestamp":
				i = 1
				ok = p.timestamp(&sv.updateTimestamp)
			case "lastContainerStatuses":
				i = 2
				sv.hasStatuses = true
				ok = p.statuses(sv)
			case "updateEnvFromMetadata":
				i = 3
				sv.updateEnvFromMetadata, ok = p.boolean()
			case "updateResources":
				i = 4
				sv.updateResources, ok = p.boolean()
			case "updateImages":
				i = 5
				sv.updateImages, ok = p.boolean()
			}
			if i < 0 || !ok || seen[i] {
				return false
			}
			seen[i] = true
			if p.byte('}') {
				break
			}
			if !p.byte(',') {
				return false
			}
		}
	} else {
		p.byte('}')
	}
	p.space()
	return p.i == len(p.s)
}

// parseStateFast reads the common form of the state annotation (see
// stateView) into a State. It gives exactly what json.Unmarshal gives for
// such text, several times faster. For anything else it returns false and
// ParseState runs json.Unmarshal.
func parseStateFast(v string) (*State, bool) {
	var sv stateView
	if !scanState(v, &sv) {
		return nil, false
	}
	return sv.state(), true
}

// state builds the State the view stands for.
func (sv *stateView) state() *State {
	st := &State{
		Revision:              sv.revision,
		UpdateTimestamp:       Time{sv.updateTimestamp},
		UpdateEnvFromMetadata: sv.updateEnvFromMetadata,
		UpdateResources:       sv.updateResources,
		UpdateImages:          sv.updateImages,
	}
	if sv.hasStatuses {
		st.LastContainerStatuses = make(map[string]ContainerStatusRecord, sv.nStatuses)
		for _, r := range sv.statuses[:sv.nStatuses] {
			st.LastContainerStatuses[r.name] = ContainerStatusRecord{ImageID: r.imageID}
		}
	}
	return st
}

// records returns the view's lastContainerStatuses.
func (sv *stateView) records() *records {
	return &records{list: sv.statuses[:sv.nStatuses], inList: true}
}

// records are the lastContainerStatuses of a state, either a map (a State)
// or the records of a stateView (distinct names): what the completion check
// reads.
type records struct {
	m      map[string]ContainerStatusRecord
	list   []statusRecord
	inList bool // the records are list, not m
}

// get returns the recorded imageID of the container named name.
func (r *records) get(name string) (imageID string, ok bool) {
	if !r.inList {
		rec, ok := r.m[name]
		return rec.ImageID, ok
	}
	for _, x := range r.list {
		if x.name == name {
			return x.imageID, true
		}
	}
	return "", false
}

// len is the number of recorded containers.
func (r *records) len() int {
	if !r.inList {
		return len(r.m)
	}
	return len(r.list)
}

// stateScanner reads JSON text from s at i.
type stateScanner struct {
	s string
	i int
}

func (p *stateScanner) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// byte consumes c (after white space) if it is next.
func (p *stateScanner) byte(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *stateScanner) peek(c byte) bool {
	p.space()
	return p.i < len(p.s) && p.s[p.i] == c
}

// str reads a string literal without escapes, control characters or invalid
// UTF-8 (those go to json.Unmarshal).
func (p *stateScanner) str() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	s, i := p.s, p.i
	// Eight bytes at a time while none is special: a quote, a backslash, a
	// control character or a non-ASCII byte.
	for ; len(s)-i >= 8; i += 8 {
		b := s[i : i+8]
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if hasZero(x^(lsb*'"'))|hasZero(x^(lsb*'\\'))|hasLess(x, 0x20)|x&msb != 0 {
			break
		}
	}
	high := false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			v := s[p.i:i]
			if high && !utf8.ValidString(v) {
				return "", false
			}
			p.i = i + 1
			return v, true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= 0x80:
			high = true
		}
	}
	return "", false
}

// Bytes of a word for hasZero and hasLess.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// hasZero is not zero iff a byte of x is zero.
func hasZero(x uint64) uint64 { return (x - lsb) & ^x & msb }

// hasLess is not zero iff a byte of x is below n (n <= 128).
func hasLess(x uint64, n byte) uint64 { return (x - lsb*uint64(n)) & ^x & msb }

func (p *stateScanner) boolean() (bool, bool) {
	p.space()
	for _, lit := range [...]string{"true", "false"} {
		if len(p.s)-p.i >= len(lit) && p.s[p.i:p.i+len(lit)] == lit {
			p.i += len(lit)
			return lit == "true", true
		}
	}
	return false, false
}

// timestamp reads what Time.UnmarshalJSON accepts: null, "" or an RFC 3339
// time (a time that does not parse goes to json.Unmarshal for its error).
func (p *stateScanner) timestamp(t *time.Time) bool {
	p.space()
	if len(p.s)-p.i >= 4 && p.s[p.i:p.i+4] == "null" {
		p.i += 4
		*t = time.Time{}
		return true
	}
	s, ok := p.str()
	if !ok {
		return false
	}
	if s == "" {
		*t = time.Time{}
		return true
	}
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return false
	}
	*t = v
	return true
}

// statuses reads an object of container name to {"imageID": string} (each
// name and member at most once, at most maxViewStatuses names) into sv.
func (p *stateScanner) statuses(sv *stateView) bool {
	if !p.byte('{') {
		return false
	}
	sv.nStatuses = 0
	if p.byte('}') {
		return true
	}
	for {
		name, ok := p.str()
		if !ok || !p.byte(':') || !p.byte('{') || sv.nStatuses == maxViewStatuses {
			return false
		}
		for _, r := range sv.statuses[:sv.nStatuses] {
			if r.name == name {
				return false // a duplicate: json.Unmarshal keeps the last record
			}
		}
		rec := statusRecord{name: name}
		if !p.byte('}') {
			key, ok := p.str()
			if !ok || key != "imageID" || !p.byte(':') {
				return false
			}
			if rec.imageID, ok = p.str(); !ok || !p.byte('}') {
				return false
			}
		}
		sv.statuses[sv.nStatuses] = rec
		sv.nStatuses++
		if p.byte('}') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}
