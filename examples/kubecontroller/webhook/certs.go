package webhook

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"
)

// The keys of the certificate Secret (Certificates keeps it; its type is
// kubernetes.io/tls).
const (
	// SecretServingCert is the serving certificate (PEM), signed by the
	// signing CA.
	SecretServingCert = "tls.crt"
	// SecretServingKey is the serving certificate's private key (PEM).
	SecretServingKey = "tls.key"
	// SecretCABundle holds every CA the API server must trust (PEM): the
	// signing CA first, then the CAs it replaced, until each expires. It
	// is what the webhook configurations and the CRD's conversion get as
	// their caBundle.
	SecretCABundle = "ca.crt"
	// SecretCAKey is the signing CA's private key (PEM).
	SecretCAKey = "ca.key"
)

// clockSkew is how far back a new certificate's validity starts, so that
// an API server whose clock is a little behind accepts it at once.
const clockSkew = time.Minute

// Artifacts are the contents of the certificate Secret: a CA bundle, the
// key of the CA that signs (the first of the bundle), and the serving
// certificate with its key, all PEM.
type Artifacts struct {
	CABundle    []byte
	CAKey       []byte
	ServingCert []byte
	ServingKey  []byte
}

// FromSecretData reads artifacts from a Secret's data (missing keys are
// empty).
func FromSecretData(data map[string][]byte) Artifacts {
	return Artifacts{CABundle: data[SecretCABundle], CAKey: data[SecretCAKey], ServingCert: data[SecretServingCert], ServingKey: data[SecretServingKey]}
}

// SecretData is the Secret's data holding a.
func (a Artifacts) SecretData() map[string][]byte {
	return map[string][]byte{SecretCABundle: a.CABundle, SecretCAKey: a.CAKey, SecretServingCert: a.ServingCert, SecretServingKey: a.ServingKey}
}

// Equal reports whether a and b hold the same bytes.
func (a Artifacts) Equal(b Artifacts) bool {
	return bytes.Equal(a.CABundle, b.CABundle) && bytes.Equal(a.CAKey, b.CAKey) &&
		bytes.Equal(a.ServingCert, b.ServingCert) && bytes.Equal(a.ServingKey, b.ServingKey)
}

// Policy says what certificates Renew issues: for which names, valid how
// long.
type Policy struct {
	// Hosts are the DNS names and IP addresses the serving certificate is
	// for (at least one).
	Hosts []string
	// CAValidity and ServingValidity are how long a new CA and a new
	// serving certificate are valid. Each is renewed once two thirds of
	// its validity have passed; a serving certificate never outlives the
	// CA that signed it.
	CAValidity, ServingValidity time.Duration
	// Propagation is how long a new CA is in the bundle before it signs a
	// serving certificate that replaces one still valid: the time every
	// API server takes to see the bundle published (DefaultPropagation
	// when 0).
	Propagation time.Duration
}

// DefaultPropagation is Policy's default Propagation.
const DefaultPropagation = 5 * time.Second

func (p Policy) propagation() time.Duration {
	if p.Propagation > 0 {
		return p.Propagation
	}
	return DefaultPropagation
}

// check refuses a policy Renew cannot follow.
func (p Policy) check() error {
	if len(p.Hosts) == 0 {
		return errors.New("webhook certificates: no host to issue the serving certificate for")
	}
	for _, h := range p.Hosts {
		if h == "" {
			return errors.New("webhook certificates: an empty host")
		}
	}
	if p.CAValidity <= 0 || p.ServingValidity <= 0 {
		return fmt.Errorf("webhook certificates: validity: CA %s, serving %s: want both above 0", p.CAValidity, p.ServingValidity)
	}
	return nil
}

// issuedAt is when a certificate of Renew was issued: its NotBefore
// plus the skew Renew puts before it (NotAfter at the latest).
func issuedAt(c *x509.Certificate) time.Time {
	if t := c.NotBefore.Add(clockSkew); t.Before(c.NotAfter) {
		return t
	}
	return c.NotAfter
}

// renewAt is when a certificate is due for renewal: two thirds of its
// validity from its issue past.
func renewAt(c *x509.Certificate) time.Time {
	start := issuedAt(c)
	return start.Add(c.NotAfter.Sub(start) * 2 / 3)
}

// State is what Inspect reads in artifacts, at a time.
type State struct {
	// Signer is the signing CA (the bundle's first certificate) when its
	// key matches it; nil otherwise.
	Signer *x509.Certificate
	// SignerKey is the signing CA's key (nil with Signer nil).
	SignerKey crypto.Signer
	// Bundle are the bundle's certificates that have not expired, in
	// order.
	Bundle []*x509.Certificate
	// Serving is the serving certificate when its key matches it, it is
	// signed by a CA of Bundle and has not expired; nil otherwise.
	Serving *x509.Certificate
}

// parseCertificates reads every CERTIFICATE block of data.
func parseCertificates(data []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return out, nil
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
}

// Inspect reads artifacts at now; what does not parse, or has expired, is
// left out of the State (Renew then replaces it).
func Inspect(a Artifacts, now time.Time) State {
	var s State
	certs, err := parseCertificates(a.CABundle)
	if err != nil {
		return s
	}
	for i, c := range certs {
		if now.After(c.NotAfter) || !c.IsCA {
			continue
		}
		s.Bundle = append(s.Bundle, c)
		if i == 0 {
			if key, err := parseKey(a.CAKey); err == nil && keyMatches(key, c) {
				s.Signer, s.SignerKey = c, key
			}
		}
	}
	if pair, err := tls.X509KeyPair(a.ServingCert, a.ServingKey); err == nil {
		leaf := pair.Leaf
		if leaf != nil && !now.After(leaf.NotAfter) && signedByOneOf(leaf, s.Bundle) {
			s.Serving = leaf
		}
	}
	return s
}

// signedByOneOf reports whether c's signature checks against one of cas.
func signedByOneOf(c *x509.Certificate, cas []*x509.Certificate) bool {
	for _, ca := range cas {
		if c.CheckSignatureFrom(ca) == nil {
			return true
		}
	}
	return false
}

// keyMatches reports whether key is the private key of c.
func keyMatches(key crypto.Signer, c *x509.Certificate) bool {
	pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	return ok && pub.Equal(c.PublicKey)
}

// parseKey reads a PEM private key (PKCS #8, EC or PKCS #1).
func parseKey(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("a %T is not a signing key", key)
	}
	return signer, nil
}

// CoversHosts reports whether the serving certificate is for exactly the
// policy's hosts.
func (s State) CoversHosts(hosts []string) bool {
	if s.Serving == nil {
		return false
	}
	var have []string
	have = append(have, s.Serving.DNSNames...)
	for _, ip := range s.Serving.IPAddresses {
		have = append(have, ip.String())
	}
	want := slices.Clone(hosts)
	for i, h := range want {
		if ip := net.ParseIP(h); ip != nil {
			want[i] = ip.String()
		}
	}
	slices.Sort(have)
	slices.Sort(want)
	return slices.Equal(slices.Compact(have), slices.Compact(want))
}

// NextRenewal is the earliest time something in s is due under p: the
// signing CA's or the serving certificate's renewal (not before the
// signing CA has propagated), or the expiry of a replaced CA (which then
// leaves the bundle). The zero time when s lacks a signer or a serving
// certificate (due now).
func (s State) NextRenewal(p Policy) time.Time {
	if s.Signer == nil || s.Serving == nil {
		return time.Time{}
	}
	next := renewAt(s.Signer)
	serving := renewAt(s.Serving)
	if ready := issuedAt(s.Signer).Add(p.propagation()); serving.Before(ready) && s.Serving.CheckSignatureFrom(s.Signer) != nil {
		serving = ready
	}
	if serving.Before(next) {
		next = serving
	}
	for _, c := range s.Bundle[1:] {
		if t := c.NotAfter.Add(time.Second); t.Before(next) {
			next = t
		}
	}
	return next
}

// Step is one change Renew makes.
type Step int

// The steps of Renew, in the order it takes them.
const (
	// StepNone: nothing was due.
	StepNone Step = iota
	// StepNewCA: a new signing CA was added at the head of the bundle
	// (the CAs it replaces stay in the bundle until they expire; the
	// serving certificate is left as it is). The caller must publish the
	// new bundle to the API server before it asks for the next step.
	StepNewCA
	// StepNewServing: a new serving certificate was issued by the signing
	// CA (expired CAs left the bundle).
	StepNewServing
	// StepPruned: expired CAs left the bundle.
	StepPruned
)

// String names the step for logs.
func (s Step) String() string {
	switch s {
	case StepNone:
		return "none"
	case StepNewCA:
		return "new CA"
	case StepNewServing:
		return "new serving certificate"
	case StepPruned:
		return "expired CAs dropped"
	}
	return fmt.Sprintf("Step(%d)", int(s))
}

// Renew returns a's next state at now under p and the step it took, one
// step at a time, so that a client never meets a serving certificate whose
// CA the API server has not been given yet:
//
//  1. no usable signing CA, or the signing CA due (two thirds of its
//     validity past): a new CA heads the bundle (StepNewCA). When the old
//     artifacts held no usable serving certificate either (the first run,
//     or everything expired), the serving certificate is issued at once:
//     nothing could be trusted anyway.
//  2. else, the serving certificate missing, or due, or for other hosts:
//     a new one (StepNewServing) signed by the signing CA, once that CA
//     has been in the bundle for p.Propagation (a serving certificate
//     still valid waits for it). A serving certificate signed by a
//     replaced CA still in the bundle is kept until it is due: the bundle
//     still trusts it.
//  3. else, expired CAs in the bundle: dropped (StepPruned).
//
// The caller publishes the bundle (SecretCABundle) after every step that
// changed it, and asks again: each call takes one step.
func Renew(a Artifacts, p Policy, now time.Time) (Artifacts, Step, error) {
	if err := p.check(); err != nil {
		return a, StepNone, err
	}
	s := Inspect(a, now)
	if s.Signer == nil || !now.Before(renewAt(s.Signer)) {
		caCert, caKey, err := newCA(p.CAValidity, now)
		if err != nil {
			return a, StepNone, err
		}
		out := Artifacts{CABundle: encodeCerts(append([]*x509.Certificate{caCert}, s.Bundle...)), ServingCert: a.ServingCert, ServingKey: a.ServingKey}
		if out.CAKey, err = encodeKey(caKey); err != nil {
			return a, StepNone, err
		}
		if s.Serving == nil {
			if out.ServingCert, out.ServingKey, err = newServing(p, caCert, caKey, now); err != nil {
				return a, StepNone, err
			}
		}
		return out, StepNewCA, nil
	}
	fresh := Artifacts{CABundle: encodeCerts(s.Bundle), CAKey: a.CAKey, ServingCert: a.ServingCert, ServingKey: a.ServingKey}
	// A serving certificate still valid waits for a new signer to
	// propagate (the API servers to see the bundle holding it).
	settled := !now.Before(issuedAt(s.Signer).Add(p.propagation())) || s.Serving != nil && s.Serving.CheckSignatureFrom(s.Signer) == nil
	if s.Serving == nil || settled && (!now.Before(renewAt(s.Serving)) || !s.CoversHosts(p.Hosts)) {
		var err error
		if fresh.ServingCert, fresh.ServingKey, err = newServing(p, s.Signer, s.SignerKey, now); err != nil {
			return a, StepNone, err
		}
		return fresh, StepNewServing, nil
	}
	if !bytes.Equal(fresh.CABundle, a.CABundle) {
		return fresh, StepPruned, nil
	}
	return a, StepNone, nil
}

// newKeyAndSerial makes an ECDSA P-256 key and a random 128-bit serial
// number for a new certificate.
func newKeyAndSerial() (*ecdsa.PrivateKey, *big.Int, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	return key, serial, err
}

// newCA makes a self-signed CA valid from now (less the skew) for
// validity.
func newCA(validity time.Duration, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, serial, err := newKeyAndSerial()
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: fmt.Sprintf("clonesetcontroller-webhook-ca@%d", now.Unix()), Organization: []string{"clonesetcontroller"}},
		NotBefore:             now.Add(-clockSkew).UTC(),
		NotAfter:              now.Add(validity).UTC(),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, err
	}
	c, err := x509.ParseCertificate(der)
	return c, key, err
}

// newServing issues a serving certificate for p.Hosts signed by ca, valid
// from now (less the skew) for p.ServingValidity or until ca expires,
// whichever comes first. It returns the certificate and key as PEM.
func newServing(p Policy, ca *x509.Certificate, caKey crypto.Signer, now time.Time) (certPEM, keyPEM []byte, err error) {
	key, serial, err := newKeyAndSerial()
	if err != nil {
		return nil, nil, err
	}
	notAfter := now.Add(p.ServingValidity).UTC()
	if notAfter.After(ca.NotAfter) {
		notAfter = ca.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: p.Hosts[0], Organization: []string{"clonesetcontroller"}},
		NotBefore:    now.Add(-clockSkew).UTC(),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range p.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err = encodeKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM, nil
}

// encodeCerts writes certificates as PEM, in order.
func encodeCerts(certs []*x509.Certificate) []byte {
	var b bytes.Buffer
	for _, c := range certs {
		_ = pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return b.Bytes()
}

// encodeKey writes an ECDSA key as PEM (EC PRIVATE KEY).
func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}
