package controlplane

import (
	"strings"
	"testing"
)

// TestDNSLabel: NewNamespace's names are DNS labels whatever the hint.
func TestDNSLabel(t *testing.T) {
	for _, tc := range []struct{ hint, want string }{
		{"TestFaultLeaderKilled", "testfaultleaderkilled"},
		{"TestOnKubeAPIServer/scale-out-vct", "testonkubeapiserver-scale-out-vct"},
		{"--a__b--", "a-b"},
		{"///", "ns"},
		{strings.Repeat("ab-", 30), strings.TrimRight(strings.Repeat("ab-", 30)[:50], "-")},
	} {
		if got := dnsLabel(tc.hint, 50); got != tc.want {
			t.Errorf("dnsLabel(%q) = %q, want %q", tc.hint, got, tc.want)
		}
	}
}
