package model

import (
	"strings"
	"testing"
)

// TestLaunchPriority: the priority is read from the launch barrier env as
// upstream's GetContainerPriority reads it; what upstream panics on is an
// error naming the container and the env.
func TestLaunchPriority(t *testing.T) {
	ref := func(key string) EnvVar {
		return EnvVar{Name: EnvLaunchBarrier, ConfigMapName: "web-a-barrier", ConfigMapKey: key}
	}
	for _, tc := range []struct {
		name         string
		env          []EnvVar
		want         int
		wantOK       bool
		wantErrMatch string
	}{
		{name: "no env", env: nil},
		{name: "the priority env alone is no barrier", env: []EnvVar{{Name: EnvLaunchPriority, Value: "10", HasValue: true}}},
		{name: "p_10", env: []EnvVar{ref("p_10")}, want: 10, wantOK: true},
		{name: "p_-3", env: []EnvVar{ref("p_-3")}, want: -3, wantOK: true},
		{name: "p_0", env: []EnvVar{ref("p_0")}, want: 0, wantOK: true},
		{name: "any two characters before the integer", env: []EnvVar{ref("xy7")}, want: 7, wantOK: true},
		{name: "no integer reads as 0", env: []EnvVar{ref("p_x")}, want: 0, wantOK: true},
		{name: "the first barrier counts", env: []EnvVar{ref("p_1"), ref("p_2")}, want: 1, wantOK: true},
		{name: "a literal value", env: []EnvVar{{Name: EnvLaunchBarrier, Value: "p_1", HasValue: true}}, wantErrMatch: `container c: env[0] KRUISE_CONTAINER_BARRIER: want valueFrom.configMapKeyRef`},
		{name: "a key of one character", env: []EnvVar{{Name: "A"}, ref("p")}, wantErrMatch: `container c: env[1] KRUISE_CONTAINER_BARRIER: want valueFrom.configMapKeyRef with the key p_<priority>, got key "p"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Container{Name: "c", Env: tc.env}
			got, ok, err := c.LaunchPriority()
			if tc.wantErrMatch != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrMatch) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErrMatch)
				}
				return
			}
			if err != nil || got != tc.want || ok != tc.wantOK {
				t.Errorf("LaunchPriority = %d, %v, %v; want %d, %v, nil", got, ok, err, tc.want, tc.wantOK)
			}
		})
	}
}
