package inplace

import (
	"time"
	"unicode/utf8"
)

// parseStateFast reads the common form of the state annotation, the one the
// controller writes after an in-place update of images: an object with the
// members revision, updateTimestamp, lastContainerStatuses (container name to
// {"imageID": ...}), updateEnvFromMetadata, updateResources and updateImages,
// plain strings (no escape), each member at most once. It gives exactly what
// json.Unmarshal gives for such text, several times faster (the refresh step
// reads the annotation of every pod). For anything else (other members, other
// spellings, escapes, null where a value is expected, malformed text) it
// returns false and ParseState runs json.Unmarshal, which also words the
// errors.
func parseStateFast(v string) (*State, bool) {
	p := stateScanner{s: v}
	st := &State{}
	if !p.byte('{') {
		return nil, false
	}
	var seen [6]bool
	if !p.peek('}') {
		for {
			key, ok := p.str()
			if !ok || !p.byte(':') {
				return nil, false
			}
			i := -1
			switch key {
			case "revision":
				i = 0
				st.Revision, ok = p.str()
			case "updateTimestamp":
				i = 1
				ok = p.timestamp(&st.UpdateTimestamp)
			case "lastContainerStatuses":
				i = 2
				st.LastContainerStatuses, ok = p.statuses()
			case "updateEnvFromMetadata":
				i = 3
				st.UpdateEnvFromMetadata, ok = p.boolean()
			case "updateResources":
				i = 4
				st.UpdateResources, ok = p.boolean()
			case "updateImages":
				i = 5
				st.UpdateImages, ok = p.boolean()
			}
			if i < 0 || !ok || seen[i] {
				return nil, false
			}
			seen[i] = true
			if p.byte('}') {
				break
			}
			if !p.byte(',') {
				return nil, false
			}
		}
	} else {
		p.byte('}')
	}
	p.space()
	return st, p.i == len(p.s)
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
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			v := p.s[start:p.i]
			p.i++
			return v, utf8.ValidString(v)
		case c == '\\' || c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

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
func (p *stateScanner) timestamp(t *Time) bool {
	p.space()
	if len(p.s)-p.i >= 4 && p.s[p.i:p.i+4] == "null" {
		p.i += 4
		t.Time = time.Time{}
		return true
	}
	s, ok := p.str()
	if !ok {
		return false
	}
	if s == "" {
		t.Time = time.Time{}
		return true
	}
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return false
	}
	t.Time = v
	return true
}

// statuses reads an object of container name to {"imageID": string} (each
// name and member at most once).
func (p *stateScanner) statuses() (map[string]ContainerStatusRecord, bool) {
	if !p.byte('{') {
		return nil, false
	}
	out := map[string]ContainerStatusRecord{}
	if p.byte('}') {
		return out, true
	}
	for {
		name, ok := p.str()
		if !ok || !p.byte(':') || !p.byte('{') {
			return nil, false
		}
		if _, dup := out[name]; dup {
			return nil, false
		}
		var rec ContainerStatusRecord
		if !p.byte('}') {
			key, ok := p.str()
			if !ok || key != "imageID" || !p.byte(':') {
				return nil, false
			}
			if rec.ImageID, ok = p.str(); !ok || !p.byte('}') {
				return nil, false
			}
		}
		out[name] = rec
		if p.byte('}') {
			return out, true
		}
		if !p.byte(',') {
			return nil, false
		}
	}
}
