// Package finding defines what every rule produces and every output renders:
// a Finding with a stable ID, a severity, the subject it is about, the
// evidence it rests on, likely causes and remedies (the JSON schema every command prints),
// and the exit-code convention of check and doctor.
package finding
