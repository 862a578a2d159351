package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Label selector operators.
const (
	OpIn           = "In"
	OpNotIn        = "NotIn"
	OpExists       = "Exists"
	OpDoesNotExist = "DoesNotExist"
)

// LabelSelectorRequirement is one matchExpressions entry.
type LabelSelectorRequirement struct {
	Key      string
	Operator string
	Values   []string
}

// LabelSelector is a Kubernetes label selector (matchLabels and matchExpressions,
// ANDed). A nil *LabelSelector is "absent"; an empty one selects everything.
type LabelSelector struct {
	MatchLabels      map[string]string
	MatchExpressions []LabelSelectorRequirement
}

// Empty reports whether the selector has no requirement at all.
func (s *LabelSelector) Empty() bool {
	return s == nil || len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
}

// Check returns an error when an expression cannot be turned into a selector
// (unknown operator, In/NotIn without values, Exists/DoesNotExist with values),
// the cases in which Kubernetes' LabelSelectorAsSelector fails.
func (s *LabelSelector) Check() error {
	if s == nil {
		return nil
	}
	for i, e := range s.MatchExpressions {
		switch e.Operator {
		case OpIn, OpNotIn:
			if len(e.Values) == 0 {
				return fmt.Errorf("matchExpressions[%d]: for 'in', 'notin' operators, values set can't be empty", i)
			}
		case OpExists, OpDoesNotExist:
			if len(e.Values) > 0 {
				return fmt.Errorf("matchExpressions[%d]: values set must be empty for exists and does not exist", i)
			}
		default:
			return fmt.Errorf("matchExpressions[%d]: %q is not a valid label selector operator", i, e.Operator)
		}
		if e.Key == "" {
			return fmt.Errorf("matchExpressions[%d].key: must not be empty", i)
		}
	}
	return nil
}

// Matches reports whether labels satisfy every requirement of s. An expression
// with an invalid operator never matches; callers that must treat such a
// selector specially call Check first. A nil selector matches nothing, an empty
// one everything (Kubernetes semantics of LabelSelectorAsSelector).
func (s *LabelSelector) Matches(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for k, v := range s.MatchLabels {
		got, ok := labels[k]
		if !ok || got != v {
			return false
		}
	}
	return matchExpressions(s.MatchExpressions, labels)
}

// matchExpressions reports whether labels satisfy every expression.
func matchExpressions(exprs []LabelSelectorRequirement, labels map[string]string) bool {
	for _, e := range exprs {
		got, ok := labels[e.Key]
		switch e.Operator {
		case OpIn:
			if !ok || !slices.Contains(e.Values, got) {
				return false
			}
		case OpNotIn:
			if ok && slices.Contains(e.Values, got) {
				return false
			}
		case OpExists:
			if !ok {
				return false
			}
		case OpDoesNotExist:
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// LabelMatcher is a selector prepared to test many label sets: its
// matchLabels are held in a slice instead of a map, which the test of every
// pod would iterate. Matches answers exactly as LabelSelector.Matches.
type LabelMatcher struct {
	sel    *LabelSelector
	labels []labelRequirement
}

type labelRequirement struct{ key, value string }

// Matcher prepares s for Matches calls; the selector must not change while
// the matcher is in use.
func (s *LabelSelector) Matcher() LabelMatcher {
	m := LabelMatcher{sel: s}
	if s != nil {
		m.labels = make([]labelRequirement, 0, len(s.MatchLabels))
		for k, v := range s.MatchLabels {
			m.labels = append(m.labels, labelRequirement{k, v})
		}
	}
	return m
}

// Matches is LabelSelector.Matches of the prepared selector.
func (m LabelMatcher) Matches(labels map[string]string) bool {
	if m.sel == nil {
		return false
	}
	for _, r := range m.labels {
		got, ok := labels[r.key]
		if !ok || got != r.value {
			return false
		}
	}
	return matchExpressions(m.sel.MatchExpressions, labels)
}

// String is the canonical Kubernetes string form ("app=x,tier in (a,b)"):
// requirements sorted by key, values sorted; "" for an absent or empty selector.
func (s *LabelSelector) String() string {
	if s.Empty() {
		return ""
	}
	type req struct{ key, text string }
	var reqs []req
	for k, v := range s.MatchLabels {
		reqs = append(reqs, req{k, k + "=" + v})
	}
	for _, e := range s.MatchExpressions {
		vals := append([]string(nil), e.Values...)
		sort.Strings(vals)
		var t string
		switch e.Operator {
		case OpIn:
			t = e.Key + " in (" + strings.Join(vals, ",") + ")"
		case OpNotIn:
			t = e.Key + " notin (" + strings.Join(vals, ",") + ")"
		case OpExists:
			t = e.Key
		case OpDoesNotExist:
			t = "!" + e.Key
		default:
			t = e.Key + " " + e.Operator + " (" + strings.Join(vals, ",") + ")"
		}
		reqs = append(reqs, req{e.Key, t})
	}
	sort.SliceStable(reqs, func(i, j int) bool {
		if reqs[i].key != reqs[j].key {
			return reqs[i].key < reqs[j].key
		}
		return reqs[i].text < reqs[j].text
	})
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = r.text
	}
	return strings.Join(parts, ",")
}
