package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"
)

// testPolicy issues for a Service name and a loopback address, with
// validities short enough to walk through several renewals.
var testPolicy = Policy{
	Hosts:           []string{"clonesetcontroller-webhook.clonesetcontroller-system.svc", "127.0.0.1"},
	CAValidity:      90 * time.Minute,
	ServingValidity: 30 * time.Minute,
}

// pool is a certificate pool of a PEM bundle.
func pool(t *testing.T, bundle []byte) *x509.CertPool {
	t.Helper()
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(bundle) {
		t.Fatalf("no certificate in the bundle %q", bundle)
	}
	return p
}

// verifies reports whether a's serving certificate verifies for host at
// now against bundle, as a TLS client (the API server) checks it.
func verifies(t *testing.T, a Artifacts, bundle []byte, host string, now time.Time) error {
	t.Helper()
	pair, err := tls.X509KeyPair(a.ServingCert, a.ServingKey)
	if err != nil {
		return err
	}
	_, err = pair.Leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: pool(t, bundle), CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err
}

func TestRenewFirstRun(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	a, step, err := Renew(Artifacts{}, testPolicy, now)
	if err != nil {
		t.Fatal(err)
	}
	if step != StepNewCA {
		t.Fatalf("step %s, want a new CA (with its serving certificate)", step)
	}
	s := Inspect(a, now)
	if s.Signer == nil || s.Serving == nil || len(s.Bundle) != 1 {
		t.Fatalf("state %+v: want a signer, a serving certificate and one CA", s)
	}
	if !s.CoversHosts(testPolicy.Hosts) {
		t.Errorf("serving certificate for %v %v, want %v", s.Serving.DNSNames, s.Serving.IPAddresses, testPolicy.Hosts)
	}
	for _, h := range testPolicy.Hosts {
		if err := verifies(t, a, a.CABundle, h, now); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	if err := verifies(t, a, a.CABundle, "other.example.com", now); err == nil {
		t.Error("the serving certificate verifies for a host it is not for")
	}
	if again, step, err := Renew(a, testPolicy, now.Add(time.Minute)); err != nil || step != StepNone || !again.Equal(a) {
		t.Errorf("a minute later: step %s, err %v, changed %v; want nothing", step, err, !again.Equal(a))
	}
}

// TestRenewWalk walks a clock through four CA lifetimes in one-minute
// ticks, taking every step due at each tick, and checks at every step what
// the API server and the clients see: the serving certificate of each new
// state verifies against the bundle of the state before (the bundle the
// API server was given before the new certificate was served: Renew never
// serves a certificate of a CA not yet published), and the serving
// certificate of the state before verifies against the new bundle (a
// replica still serving it stays trusted); a serving certificate still
// valid is replaced only by one of a CA in the bundle for the policy's
// propagation time; no state holds an expired certificate; every kind of
// step happens.
func TestRenewWalk(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	a, _, err := Renew(Artifacts{}, testPolicy, start)
	if err != nil {
		t.Fatal(err)
	}
	steps := map[Step]int{}
	firstSeen := map[string]time.Time{} // a CA's first time in the bundle, by serial
	seen := func(a Artifacts, now time.Time) {
		certs, _ := parseCertificates(a.CABundle)
		for _, c := range certs {
			if _, ok := firstSeen[c.SerialNumber.String()]; !ok {
				firstSeen[c.SerialNumber.String()] = now
			}
		}
	}
	seen(a, start)
	for now := start; now.Before(start.Add(4 * testPolicy.CAValidity)); now = now.Add(time.Minute) {
		for range 5 {
			next, step, err := Renew(a, testPolicy, now)
			if err != nil {
				t.Fatal(err)
			}
			if step == StepNone {
				if !next.Equal(a) {
					t.Fatalf("%s: no step, but the artifacts changed", now)
				}
				break
			}
			steps[step]++
			if step == StepNewServing && Inspect(a, now).Serving != nil {
				signer := Inspect(next, now).Signer
				if first := firstSeen[signer.SerialNumber.String()]; now.Sub(first) < testPolicy.propagation() {
					t.Fatalf("%s: a valid serving certificate replaced by one of a CA in the bundle for %s only", now.Format(time.TimeOnly), now.Sub(first))
				}
			}
			seen(next, now)
			for _, h := range testPolicy.Hosts {
				if err := verifies(t, next, a.CABundle, h, now); err != nil {
					t.Fatalf("%s: after %s, the new serving certificate does not verify against the bundle published before: %v", now.Format(time.TimeOnly), step, err)
				}
				if err := verifies(t, a, next.CABundle, h, now); err != nil {
					t.Fatalf("%s: after %s, the old serving certificate does not verify against the new bundle: %v", now.Format(time.TimeOnly), step, err)
				}
			}
			a = next
		}
		s := Inspect(a, now)
		if s.Signer == nil || s.Serving == nil {
			t.Fatalf("%s: at rest without a signer or a serving certificate", now)
		}
		certs, _ := parseCertificates(a.CABundle)
		for _, c := range certs {
			if now.After(c.NotAfter) {
				t.Fatalf("%s: the bundle keeps a CA expired at %s", now, c.NotAfter)
			}
		}
		if !s.NextRenewal(testPolicy).After(now) {
			t.Fatalf("%s: at rest, but the next renewal is %s", now, s.NextRenewal(testPolicy))
		}
	}
	t.Logf("steps: %v", steps)
	for _, st := range []Step{StepNewCA, StepNewServing, StepPruned} {
		if steps[st] < 2 {
			t.Errorf("step %s taken %d times in four CA lifetimes", st, steps[st])
		}
	}
}

func TestRenewReplaces(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	good, _, err := Renew(Artifacts{}, testPolicy, now)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := Renew(Artifacts{}, testPolicy, now)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		a     Artifacts
		p     Policy
		want  Step
		fresh bool // a new serving certificate
	}{
		"garbage":             {a: Artifacts{CABundle: []byte("x"), CAKey: []byte("y"), ServingCert: []byte("z")}, p: testPolicy, want: StepNewCA, fresh: true},
		"CA key of another":   {a: Artifacts{CABundle: good.CABundle, CAKey: other.CAKey, ServingCert: good.ServingCert, ServingKey: good.ServingKey}, p: testPolicy, want: StepNewCA},
		"serving of another":  {a: Artifacts{CABundle: good.CABundle, CAKey: good.CAKey, ServingCert: other.ServingCert, ServingKey: other.ServingKey}, p: testPolicy, want: StepNewServing, fresh: true},
		"serving key swapped": {a: Artifacts{CABundle: good.CABundle, CAKey: good.CAKey, ServingCert: good.ServingCert, ServingKey: other.ServingKey}, p: testPolicy, want: StepNewServing, fresh: true},
		"hosts changed":       {a: good, p: Policy{Hosts: []string{"127.0.0.1"}, CAValidity: testPolicy.CAValidity, ServingValidity: testPolicy.ServingValidity}, want: StepNewServing, fresh: true},
	} {
		t.Run(name, func(t *testing.T) {
			next, step, err := Renew(tc.a, tc.p, now)
			if err != nil {
				t.Fatal(err)
			}
			if step != tc.want {
				t.Fatalf("step %s, want %s", step, tc.want)
			}
			s := Inspect(next, now)
			if tc.fresh && (s.Serving == nil || !s.CoversHosts(tc.p.Hosts)) {
				t.Errorf("no serving certificate for %v after the step", tc.p.Hosts)
			}
		})
	}
	if _, _, err := Renew(Artifacts{}, Policy{CAValidity: time.Hour, ServingValidity: time.Hour}, now); err == nil {
		t.Error("a policy without hosts renewed")
	}
	if _, _, err := Renew(Artifacts{}, Policy{Hosts: []string{"a"}, CAValidity: time.Hour}, now); err == nil {
		t.Error("a policy with a zero serving validity renewed")
	}
}

// TestServingNeverOutlivesItsCA: a serving certificate asked for longer
// than its CA has left ends with the CA.
func TestServingNeverOutlivesItsCA(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	p := Policy{Hosts: []string{"127.0.0.1"}, CAValidity: time.Hour, ServingValidity: 10 * time.Hour}
	a, _, err := Renew(Artifacts{}, p, now)
	if err != nil {
		t.Fatal(err)
	}
	s := Inspect(a, now)
	if s.Serving.NotAfter.After(s.Signer.NotAfter) {
		t.Errorf("serving certificate until %s, its CA until %s", s.Serving.NotAfter, s.Signer.NotAfter)
	}
	if ip := s.Serving.IPAddresses; len(ip) != 1 || !ip[0].Equal(net.ParseIP("127.0.0.1")) {
		t.Errorf("IP addresses %v", ip)
	}
}

// TestRenewShortValidity: with validities of seconds (a test's), a new
// certificate is not due at once (the skew before its issue does not
// count), and is due at two thirds of its validity.
func TestRenewShortValidity(t *testing.T) {
	p := Policy{Hosts: []string{"127.0.0.1"}, CAValidity: 45 * time.Second, ServingValidity: 15 * time.Second, Propagation: 3 * time.Second}
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	a, _, err := Renew(Artifacts{}, p, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		after time.Duration
		want  Step
	}{{time.Second, StepNone}, {9 * time.Second, StepNone}, {11 * time.Second, StepNewServing}} {
		if _, step, err := Renew(a, p, now.Add(tc.after)); err != nil || step != tc.want {
			t.Errorf("%s after the first run: step %s, %v; want %s", tc.after, step, err, tc.want)
		}
	}
	if next := Inspect(a, now).NextRenewal(p); next != now.Add(10*time.Second) {
		t.Errorf("next renewal %s after the first run, want 10s", next.Sub(now))
	}
}
