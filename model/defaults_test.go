package model

import (
	"reflect"
	"testing"
)

func TestSetDefaultsV1beta1(t *testing.T) {
	cases := []struct {
		name string
		in   UpdateStrategy
		want UpdateStrategy
	}{
		{"empty", UpdateStrategy{}, UpdateStrategy{Type: UpdateStrategyRollingUpdate, RollingUpdate: &RollingUpdateStrategy{
			PodUpdatePolicy: PolicyReCreate, Partition: iop(FromInt(0)), MaxUnavailable: iop(FromString("20%")), MaxSurge: iop(FromInt(0))}}},
		{"in-place policy gets an in-place strategy", UpdateStrategy{RollingUpdate: &RollingUpdateStrategy{PodUpdatePolicy: PolicyInPlaceOnly, MaxSurge: iop(FromInt(0)), Partition: iop(FromString("50%"))}},
			UpdateStrategy{Type: UpdateStrategyRollingUpdate, RollingUpdate: &RollingUpdateStrategy{
				PodUpdatePolicy: PolicyInPlaceOnly, Partition: iop(FromString("50%")), MaxUnavailable: iop(FromString("20%")), MaxSurge: iop(FromInt(0)),
				InPlaceUpdateStrategy: &InPlaceUpdateStrategy{}}}},
		{"OnDelete gets no rollingUpdate", UpdateStrategy{Type: UpdateStrategyOnDelete}, UpdateStrategy{Type: UpdateStrategyOnDelete}},
		{"OnDelete keeps a hand-written rollingUpdate as is", UpdateStrategy{Type: UpdateStrategyOnDelete, RollingUpdate: &RollingUpdateStrategy{}},
			UpdateStrategy{Type: UpdateStrategyOnDelete, RollingUpdate: &RollingUpdateStrategy{}}},
		{"unknown type untouched", UpdateStrategy{Type: "ReCreate"}, UpdateStrategy{Type: "ReCreate"}},
	}
	for _, c := range cases {
		cs := &CloneSet{APIVersion: APIVersionV1beta1, Spec: CloneSetSpec{UpdateStrategy: c.in}}
		SetDefaults(cs)
		if !reflect.DeepEqual(cs.Spec.UpdateStrategy, c.want) {
			t.Errorf("%s: got %+v / %+v", c.name, cs.Spec.UpdateStrategy, cs.Spec.UpdateStrategy.RollingUpdate)
		}
		if *cs.Spec.Replicas != 1 || *cs.Spec.RevisionHistoryLimit != 10 || cs.V1alpha1 != nil || cs.Spec.ScaleStrategy.EnablePVCReuse {
			t.Errorf("%s: common defaults %+v", c.name, cs.Spec)
		}
	}
	// Present values stay.
	cs := &CloneSet{APIVersion: APIVersionV1beta1, Spec: CloneSetSpec{Replicas: int32p(0), RevisionHistoryLimit: int32p(3)}}
	SetDefaults(cs)
	if *cs.Spec.Replicas != 0 || *cs.Spec.RevisionHistoryLimit != 3 {
		t.Errorf("overwrote: %+v", cs.Spec)
	}
	// Other versions and nil are left alone.
	other := &CloneSet{APIVersion: "apps/v1"}
	SetDefaults(other)
	SetDefaults(nil)
	ConvertV1alpha1(nil)
	if other.Spec.Replicas != nil {
		t.Error("defaulted an unknown version")
	}
}

func TestSetDefaultsV1alpha1(t *testing.T) {
	cs := &CloneSet{APIVersion: APIVersionV1alpha1}
	SetDefaults(cs)
	want := &V1alpha1Fields{UpdateStrategyType: V1alpha1TypeReCreate, UpdateStrategy: RollingUpdateStrategy{
		Partition: iop(FromInt(0)), MaxUnavailable: iop(FromString("20%")), MaxSurge: iop(FromInt(0))}}
	if !reflect.DeepEqual(cs.V1alpha1, want) {
		t.Errorf("v1alpha1 = %+v", cs.V1alpha1)
	}
	// Defaults do not touch the internal strategy: conversion does.
	if cs.Spec.UpdateStrategy.Type != "" {
		t.Errorf("spec strategy set before conversion: %+v", cs.Spec.UpdateStrategy)
	}
	// Budget defaults apply to OnDelete too (LSV 4.1), the in-place strategy
	// only to the in-place types.
	cs = &CloneSet{APIVersion: APIVersionV1alpha1, V1alpha1: &V1alpha1Fields{UpdateStrategyType: V1alpha1TypeOnDelete}}
	SetDefaults(cs)
	if u := cs.V1alpha1.UpdateStrategy; u.Partition == nil || u.MaxSurge == nil || u.InPlaceUpdateStrategy != nil {
		t.Errorf("OnDelete defaults: %+v", u)
	}
	cs = &CloneSet{APIVersion: APIVersionV1alpha1, V1alpha1: &V1alpha1Fields{UpdateStrategyType: V1alpha1TypeInPlaceIfPossible}}
	SetDefaults(cs)
	if cs.V1alpha1.UpdateStrategy.InPlaceUpdateStrategy == nil {
		t.Error("no in-place strategy for InPlaceIfPossible")
	}
}

// TestConvertV1alpha1 is LSV 5.2 and worked example 7.13.
func TestConvertV1alpha1(t *testing.T) {
	cs := &CloneSet{
		APIVersion: APIVersionV1alpha1,
		Labels:     map[string]string{LabelScalingExcludePreparingDelete: "true"},
		Annotations: map[string]string{
			AnnotationImagePreDownloadParallelism:         "3",
			AnnotationImagePreDownloadTimeoutSeconds:      "ten",
			AnnotationImagePreDownloadMinUpdatedReadyPods: "2",
		},
		Spec: CloneSetSpec{Replicas: int32p(4)},
		V1alpha1: &V1alpha1Fields{
			UpdateStrategyType: V1alpha1TypeInPlaceIfPossible,
			UpdateStrategy: RollingUpdateStrategy{
				Partition: iop(FromString("25%")), MaxUnavailable: iop(FromInt(1)),
				InPlaceUpdateStrategy: &InPlaceUpdateStrategy{GracePeriodSeconds: 15, ImagePreDownloadTimeoutSeconds: int32p(60)},
			},
		},
	}
	SetDefaults(cs)
	ConvertV1alpha1(cs)
	want := UpdateStrategy{Type: UpdateStrategyRollingUpdate, RollingUpdate: &RollingUpdateStrategy{
		PodUpdatePolicy: PolicyInPlaceIfPossible, Partition: iop(FromString("25%")), MaxUnavailable: iop(FromInt(1)), MaxSurge: iop(FromInt(0)),
		InPlaceUpdateStrategy: &InPlaceUpdateStrategy{GracePeriodSeconds: 15, ImagePreDownloadParallelism: iop(FromInt(3)), ImagePreDownloadMinUpdatedReadyPods: int32p(2)},
	}}
	if !reflect.DeepEqual(cs.Spec.UpdateStrategy, want) {
		t.Errorf("got %+v\n%+v", cs.Spec.UpdateStrategy.RollingUpdate, cs.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy)
	}
	if !cs.Spec.ScaleStrategy.EnablePVCReuse || !cs.Spec.ScaleStrategy.ExcludePreparingDelete {
		t.Errorf("scaleStrategy %+v", cs.Spec.ScaleStrategy)
	}

	conv := func(typ string, mod func(cs *CloneSet)) *CloneSet {
		c := &CloneSet{APIVersion: APIVersionV1alpha1, V1alpha1: &V1alpha1Fields{UpdateStrategyType: typ}}
		if mod != nil {
			mod(c)
		}
		SetDefaults(c)
		ConvertV1alpha1(c)
		return c
	}
	for typ, policy := range map[string]string{"": PolicyReCreate, "ReCreate": PolicyReCreate, "InPlaceOnly": PolicyInPlaceOnly, "Rolling": PolicyReCreate} {
		c := conv(typ, nil)
		if c.Spec.UpdateStrategy.Type != UpdateStrategyRollingUpdate || c.Spec.UpdateStrategy.RollingUpdate.PodUpdatePolicy != policy {
			t.Errorf("type %q: %+v", typ, c.Spec.UpdateStrategy.RollingUpdate)
		}
	}
	// OnDelete drops the whole rollingUpdate block.
	c := conv(V1alpha1TypeOnDelete, func(c *CloneSet) {
		c.V1alpha1.UpdateStrategy.Paused = true
		c.V1alpha1.UpdateStrategy.ScatterStrategy = []ScatterTerm{{Key: "a", Value: "b"}}
		c.V1alpha1.DisablePVCReuse = true
		c.Labels = map[string]string{LabelScalingExcludePreparingDelete: "yes"}
	})
	if !reflect.DeepEqual(c.Spec.UpdateStrategy, UpdateStrategy{Type: UpdateStrategyOnDelete}) || c.Spec.ScaleStrategy.EnablePVCReuse || c.Spec.ScaleStrategy.ExcludePreparingDelete {
		t.Errorf("OnDelete: %+v %+v", c.Spec.UpdateStrategy, c.Spec.ScaleStrategy)
	}
	// Without in-place strategy and annotations: none. With an empty
	// annotation: none either.
	if c := conv("ReCreate", func(c *CloneSet) { c.Annotations = map[string]string{AnnotationImagePreDownloadParallelism: ""} }); c.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy != nil {
		t.Errorf("in-place strategy from nothing: %+v", c.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy)
	}
	// Annotation parsing: parallelism is intstr.Parse, the others 32-bit integers or dropped.
	for _, a := range []struct {
		par     string
		wantPar IntOrPercent
		timeout string
		wantTO  *int32
	}{
		{"+7", FromInt(7), "-5", int32p(-5)},
		{"50%", FromString("50%"), "2147483648", nil},
		{"abc", FromString("abc"), " 5", nil},
		{"4294967297", FromInt(1), "0", int32p(0)},
	} {
		c := conv("ReCreate", func(c *CloneSet) {
			c.Annotations = map[string]string{AnnotationImagePreDownloadParallelism: a.par, AnnotationImagePreDownloadTimeoutSeconds: a.timeout}
		})
		ip := c.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy
		if ip == nil || *ip.ImagePreDownloadParallelism != a.wantPar || !reflect.DeepEqual(ip.ImagePreDownloadTimeoutSeconds, a.wantTO) {
			t.Errorf("annotations %q %q: %+v", a.par, a.timeout, ip)
		}
	}
	// Conversion copies: changing the v1alpha1 facts later leaves the spec alone.
	c = conv("ReCreate", func(c *CloneSet) {
		c.V1alpha1.UpdateStrategy.PriorityStrategy = &UpdatePriorityStrategy{WeightPriority: []UpdatePriorityWeightTerm{{Weight: 5, MatchSelector: LabelSelector{MatchLabels: map[string]string{"a": "b"}}}}}
	})
	c.V1alpha1.UpdateStrategy.PriorityStrategy.WeightPriority[0].MatchSelector.MatchLabels["a"] = "changed"
	*c.V1alpha1.UpdateStrategy.Partition = FromInt(9)
	ru := c.Spec.UpdateStrategy.RollingUpdate
	if ru.PriorityStrategy.WeightPriority[0].MatchSelector.MatchLabels["a"] != "b" || *ru.Partition != FromInt(0) {
		t.Errorf("conversion shares memory with the v1alpha1 facts: %+v", ru)
	}
	// v1beta1 objects are not converted.
	b := &CloneSet{APIVersion: APIVersionV1beta1, V1alpha1: &V1alpha1Fields{UpdateStrategyType: V1alpha1TypeOnDelete}}
	ConvertV1alpha1(b)
	if b.Spec.UpdateStrategy.Type != "" {
		t.Error("converted a v1beta1 object")
	}
}

// TestV1alpha1View: validation of a v1alpha1 object built in code without
// V1alpha1 facts derives them with LSV 5.3.
func TestV1alpha1View(t *testing.T) {
	cs := validCloneSet(APIVersionV1beta1)
	cs.APIVersion = APIVersionV1alpha1
	cs.Spec.UpdateStrategy.RollingUpdate.PodUpdatePolicy = PolicyInPlaceOnly
	cs.Spec.UpdateStrategy.RollingUpdate.MaxSurge = iop(FromInt(1))
	errs := Validate(cs, nil)
	if !errs.HasRule("A16") || errs.HasRule("B16") {
		t.Errorf("errs = %v", errs)
	}
	cs.Spec.UpdateStrategy = UpdateStrategy{Type: UpdateStrategyOnDelete}
	if errs := Validate(cs, nil); !errs.HasRule("A11") || !errs.HasRule("A12") {
		t.Errorf("OnDelete view: %v", errs)
	}
}
