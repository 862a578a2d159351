package model

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fill sets every exported field reachable from v to a non-zero value:
// strings, numbers, booleans and times, pointers to filled values, maps and
// slices of two filled entries, and JSON-like trees for map[string]any. Types
// without exported fields (Quantity, time.Time) are left as they are, except
// time.Time, which gets an instant. A field added to the model later is
// filled too, so the copy tests below cover it without being edited.
func fill(v reflect.Value, depth int) {
	if depth > 12 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", depth))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(depth + 1))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(depth) + 0.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := range 2 {
			k := reflect.New(v.Type().Key()).Elem()
			fill(k, depth+1)
			if k.Kind() == reflect.String {
				k.SetString(fmt.Sprintf("k%d", i))
			}
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		// The JSON-like trees of Raw: a map holding a list holding a map.
		v.Set(reflect.ValueOf(map[string]any{
			"list": []any{map[string]any{"x": json.Number("1")}, "y", true, nil},
		}))
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	}
}

// shared returns the paths at which a and b (equal values of one type) hold
// the same map, slice backing array or pointer: mutable memory a copy must
// not share. It looks through exported fields only (Quantity's number and
// time.Time's location are immutable).
func shared(a, b reflect.Value, path string) []string {
	var out []string
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return nil
		}
		if a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		out = append(out, shared(a.Elem(), b.Elem(), path)...)
	case reflect.Slice:
		if a.Len() == 0 || b.Len() == 0 {
			return nil
		}
		if a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		for i := range min(a.Len(), b.Len()) {
			out = append(out, shared(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case reflect.Map:
		if a.Len() == 0 || b.Len() == 0 {
			return nil
		}
		if a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); bv.IsValid() {
				out = append(out, shared(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k))...)
			}
		}
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return nil
		}
		out = append(out, shared(a.Elem(), b.Elem(), path)...)
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				out = append(out, shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)...)
			}
		}
	}
	return out
}

// Every DeepCopy gives a value equal to its original that shares no mutable
// memory with it, for objects with every field set; nil copies to nil.
func TestDeepCopySharesNothing(t *testing.T) {
	cases := []struct {
		name string
		orig any
		copy func(any) any
	}{
		{"Scenario", &Scenario{}, func(v any) any { return v.(*Scenario).DeepCopy() }},
		{"CloneSet", &CloneSet{}, func(v any) any { return v.(*CloneSet).DeepCopy() }},
		{"Pod", &Pod{}, func(v any) any { return v.(*Pod).DeepCopy() }},
		{"PVC", &PVC{}, func(v any) any { return v.(*PVC).DeepCopy() }},
		{"Revision", &Revision{}, func(v any) any { return v.(*Revision).DeepCopy() }},
		{"Node", &Node{}, func(v any) any { return v.(*Node).DeepCopy() }},
		{"ImagePullJob", &ImagePullJob{}, func(v any) any { return v.(*ImagePullJob).DeepCopy() }},
		{"LabelSelector", &LabelSelector{}, func(v any) any { return v.(*LabelSelector).DeepCopy() }},
		{"PodTemplate", &PodTemplate{}, func(v any) any { c := v.(*PodTemplate).DeepCopy(); return &c }},
		{"PodSpec", &PodSpec{}, func(v any) any { c := v.(*PodSpec).DeepCopy(); return &c }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fill(reflect.ValueOf(tc.orig).Elem(), 0)
			c := tc.copy(tc.orig)
			if !reflect.DeepEqual(tc.orig, c) {
				t.Fatalf("the copy differs from the original:\n%+v\n%+v", tc.orig, c)
			}
			if paths := shared(reflect.ValueOf(tc.orig), reflect.ValueOf(c), tc.name); len(paths) > 0 {
				t.Fatalf("the copy shares mutable memory with the original at:\n%s", strings.Join(paths, "\n"))
			}
		})
	}
	if (*Pod)(nil).DeepCopy() != nil || (*CloneSet)(nil).DeepCopy() != nil || (*Scenario)(nil).DeepCopy() != nil ||
		(*PVC)(nil).DeepCopy() != nil || (*Revision)(nil).DeepCopy() != nil || (*Node)(nil).DeepCopy() != nil ||
		(*LabelSelector)(nil).DeepCopy() != nil || (*ImagePullJob)(nil).DeepCopy() != nil {
		t.Fatal("a nil object must copy to nil")
	}
}

// The check above can fail: a shallow copy is caught at the shared maps,
// slices and pointers, and a filled object has them.
func TestSharedFindsShallowCopies(t *testing.T) {
	var cs CloneSet
	fill(reflect.ValueOf(&cs).Elem(), 0)
	shallow := cs
	paths := shared(reflect.ValueOf(&cs).Elem(), reflect.ValueOf(&shallow).Elem(), "CloneSet")
	for _, want := range []string{"CloneSet.Labels", "CloneSet.Spec.Selector", "CloneSet.Spec.Template.Raw", "CloneSet.V1alpha1"} {
		found := false
		for _, p := range paths {
			found = found || p == want
		}
		if !found {
			t.Errorf("shallow copy not caught at %s (caught: %d paths)", want, len(paths))
		}
	}
	if cs.Spec.UpdateStrategy.RollingUpdate.PriorityStrategy == nil || len(cs.Spec.Template.Spec.Containers[0].Resources.Limits) == 0 {
		t.Error("fill left nested fields empty")
	}
}
