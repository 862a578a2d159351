package inplace

import (
	"math"
	"time"
)

// maxWholeDuration is the largest duration of whole seconds: roundUpSeconds
// returns it unchanged, so a saturated remainder never overflows there.
const maxWholeDuration = time.Duration(math.MaxInt64) / time.Second * time.Second

// graceLeft is what remains of a grace period of grace seconds started at
// start: grace - (now - start), positive while now - start < grace (the
// controller's comparison), else 0 or less. time.Time.Sub saturates for
// instants centuries apart; the subtraction here saturates too, instead of
// wrapping to a negative duration that would end the grace period of an
// update stamped far in the future.
func graceLeft(grace int32, start, now time.Time) time.Duration {
	g := time.Duration(grace) * time.Second
	elapsed := now.Sub(start)
	if elapsed >= g {
		return 0
	}
	if elapsed < 0 && g > maxWholeDuration+elapsed {
		return maxWholeDuration
	}
	return min(g-elapsed, maxWholeDuration)
}
