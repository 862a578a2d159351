package controlplane

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNodeHeartbeatWithinGracePeriod: kwok renews no node lease here (no
// lease in kube-node-lease), so the heartbeat stage's status patch is the
// only sign of life kube-controller-manager's node lifecycle controller
// sees. Its longest delay must stay well inside --node-monitor-grace-period
// (half of it, a margin for a loaded machine): with a heartbeat every 300
// to 330 s against a grace period of 300 s, every node was found not Ready
// about five minutes after the start and every five minutes on, for a
// second, and the controller marked every pod not Ready, which moved the
// Ready condition's lastTransitionTime of pods that had been ready for
// minutes (kruise's e2e "scales with minReadySeconds and scaleStrategy"
// measures pod creations from it).
func TestNodeHeartbeatWithinGracePeriod(t *testing.T) {
	var heartbeat string
	for _, doc := range Stages() {
		if strings.Contains(doc, "name: cloneset-node-heartbeat") {
			heartbeat = doc
		}
	}
	if heartbeat == "" {
		t.Fatal("no cloneset-node-heartbeat stage")
	}
	longest := time.Duration(0)
	for _, key := range []string{"durationMilliseconds", "jitterDurationMilliseconds"} {
		m := regexp.MustCompile(`(?m)^\s+` + key + `:\s*(\d+)\s*$`).FindStringSubmatch(heartbeat)
		if m == nil {
			t.Fatalf("heartbeat stage without %s", key)
		}
		ms, _ := strconv.Atoi(m[1])
		longest = max(longest, time.Duration(ms)*time.Millisecond)
	}
	if longest > nodeMonitorGracePeriod/2 {
		t.Errorf("the node heartbeat comes up to %s apart; the node monitor grace period is %s: want at most half of it", longest, nodeMonitorGracePeriod)
	}
}
