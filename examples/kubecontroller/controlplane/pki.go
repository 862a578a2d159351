package controlplane

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the control plane's certificate authority and the files the
// components read: the CA, the API server's serving certificate and the
// service-account signing key. Client certificates for any user are signed
// on demand (clientCert).
type pki struct {
	dir    string
	ca     *x509.Certificate
	caKey  crypto.Signer
	caPEM  []byte
	serial int64
}

// File names in the pki directory.
const (
	caCertFile        = "ca.crt"
	caKeyFile         = "ca.key"
	servingCertFile   = "apiserver.crt"
	servingKeyFile    = "apiserver.key"
	serviceAccountKey = "sa.key"
	serviceAccountPub = "sa.pub"
)

// certValidity is long enough for any test run and for `controlplane up`.
const certValidity = 7 * 24 * time.Hour

// newPKI creates the CA, the API server's serving certificate (for
// 127.0.0.1, ::1, localhost, the kubernetes service names and serviceIP)
// and the service-account key pair in dir.
func newPKI(dir string, serviceIP net.IP) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "cloneset-controlplane-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	p := &pki{dir: dir, ca: ca, caKey: caKey, caPEM: pemBlock("CERTIFICATE", der), serial: 1}
	caKeyPEM, err := keyPEM(caKey)
	if err != nil {
		return nil, err
	}
	if err := p.write(caCertFile, p.caPEM); err != nil {
		return nil, err
	}
	if err := p.write(caKeyFile, caKeyPEM); err != nil {
		return nil, err
	}
	certPEM, servingKeyPEM, err := p.sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1"), serviceIP},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
	})
	if err != nil {
		return nil, err
	}
	if err := p.write(servingCertFile, certPEM); err != nil {
		return nil, err
	}
	if err := p.write(servingKeyFile, servingKeyPEM); err != nil {
		return nil, err
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	saKeyPEM, err := keyPEM(saKey)
	if err != nil {
		return nil, err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	if err := p.write(serviceAccountKey, saKeyPEM); err != nil {
		return nil, err
	}
	if err := p.write(serviceAccountPub, pemBlock("PUBLIC KEY", saPub)); err != nil {
		return nil, err
	}
	return p, nil
}

// path is the path of a file of the pki directory.
func (p *pki) path(name string) string { return filepath.Join(p.dir, name) }

func (p *pki) write(name string, data []byte) error {
	return os.WriteFile(p.path(name), data, 0o600)
}

// clientCert signs a client certificate for user in groups (the
// certificate's organizations) and returns it and its key in PEM.
func (p *pki) clientCert(user string, groups ...string) (certPEM, privateKeyPEM []byte, err error) {
	return p.sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// sign completes tmpl (serial, validity, key usage), signs it with the CA
// for a new key and returns both in PEM. Not safe for concurrent use.
func (p *pki) sign(tmpl *x509.Certificate) (certPEM, privateKeyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	p.serial++
	now := time.Now()
	tmpl.SerialNumber = big.NewInt(p.serial)
	tmpl.NotBefore = now.Add(-time.Hour)
	tmpl.NotAfter = now.Add(certValidity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("controlplane: sign %q: %w", tmpl.Subject.CommonName, err)
	}
	kp, err := keyPEM(key)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock("CERTIFICATE", der), kp, nil
}

func keyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pemBlock("EC PRIVATE KEY", der), nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
