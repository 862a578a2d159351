package podtemplate

import (
	"regexp"
	"strings"
)

// An image reference, as Kubernetes reads one to default a container's
// imagePullPolicy (k8s.io/kubernetes pkg/util/parsers.ParseImageName, which
// normalizes the name as Docker does with github.com/distribution/reference
// v0.6.0 and checks a digest with github.com/opencontainers/go-digest). The
// grammar, from that package's documentation:
//
//	reference   := name [ ":" tag ] [ "@" digest ]
//	name        := [ domain "/" ] path
//	domain      := host [ ":" port ]     host: DNS labels joined by dots
//	                                     (letters of both cases, digits,
//	                                     inner hyphens) or "[" IPv6 "]"
//	path        := component { "/" component }
//	component   := alnum { separator alnum }   alnum: [a-z0-9]+;
//	                                           separator: "." "_" "__" or hyphens
//	tag         := [\w][\w.-]{0,127}
//	digest      := algorithm ":" hex{32,}      algorithm: letters and digits
//	                                           joined by - _ + .
var (
	refAlnum     = `[a-z0-9]+`
	refComponent = refAlnum + `(?:(?:[._]|__|-+)` + refAlnum + `)*`
	refPath      = refComponent + `(?:/` + refComponent + `)*`
	refLabel     = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refDomain    = `(?:` + refLabel + `(?:\.` + refLabel + `)*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?`
	refTag       = `[\w][\w.-]{0,127}`
	refDigest    = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[[:xdigit:]]{32,}`

	// referencePattern captures the name, the tag and the digest.
	referencePattern = regexp.MustCompile(`^((?:` + refDomain + `/)?` + refPath + `)(?::(` + refTag + `))?(?:@(` + refDigest + `))?$`)
	// namePattern captures a name's domain (when there is one) and path.
	namePattern = regexp.MustCompile(`^(?:(` + refDomain + `)/)?(` + refPath + `)$`)
	// hexIdentifierPattern is a bare 64-digit hex string, which Docker
	// refuses as a name.
	hexIdentifierPattern = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// lowerHex is a lowercase hex string.
	lowerHex = regexp.MustCompile(`^[a-f0-9]*$`)
)

// digestHexLength is the hex length of each digest algorithm a Kubernetes
// binary can check (the ones whose hashes it links: sha256, sha384, sha512).
var digestHexLength = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// maxRepositoryPath is the longest path a repository name may have.
const maxRepositoryPath = 255

// imageTagAndDigest reads an image reference as Kubernetes does to default
// a pull policy: its tag and digest, ok false when it does not parse (a
// bad name, an uppercase repository, a path too long, a digest whose
// algorithm is unknown or whose hex has the wrong length or case).
func imageTagAndDigest(image string) (tag, digest string, ok bool) {
	if hexIdentifierPattern.MatchString(image) {
		return "", "", false
	}
	domain, remainder := splitDomain(image)
	repository, _, _ := strings.Cut(remainder, ":")
	if strings.ToLower(repository) != repository {
		return "", "", false
	}
	m := referencePattern.FindStringSubmatch(domain + "/" + remainder)
	if m == nil {
		return "", "", false
	}
	path := m[1]
	if n := namePattern.FindStringSubmatch(m[1]); n != nil {
		path = n[2]
	}
	if len(path) > maxRepositoryPath {
		return "", "", false
	}
	if m[3] != "" {
		algorithm, hex, _ := strings.Cut(m[3], ":")
		if length, known := digestHexLength[algorithm]; !known || len(hex) != length || !lowerHex.MatchString(hex) {
			return "", "", false
		}
	}
	return m[2], m[3], true
}

// splitDomain splits an image name into its registry and the rest, as
// Docker normalizes it: no registry (or index.docker.io) is docker.io, a
// single-component name on docker.io is under library/. The first
// component is a registry when it is localhost, has a dot or a colon, or
// has an uppercase letter.
func splitDomain(name string) (domain, remainder string) {
	const dockerHub = "docker.io"
	first, rest, found := strings.Cut(name, "/")
	switch {
	case !found:
		return dockerHub, "library/" + name
	case first == "localhost", strings.ContainsAny(first, ".:"), strings.ToLower(first) != first:
		domain, remainder = first, rest
	default:
		domain, remainder = dockerHub, name
	}
	if first == "index.docker.io" {
		domain = dockerHub
	}
	if domain == dockerHub && !strings.Contains(remainder, "/") {
		remainder = "library/" + remainder
	}
	return domain, remainder
}

// pullsAlways says whether Kubernetes defaults the pull policy of this image
// to Always: the reference parses and its tag is "latest", or it has
// neither a tag nor a digest. Otherwise (any other tag, a digest without a
// tag, a reference that does not parse) the default is IfNotPresent.
func pullsAlways(image string) bool {
	tag, digest, ok := imageTagAndDigest(image)
	return ok && (tag == "latest" || tag == "" && digest == "")
}
