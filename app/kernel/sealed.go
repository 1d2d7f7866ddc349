package kernel

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
)

// Sealed secrets: values the service must use again in clear (webhook
// signing secrets), unlike bearer secrets, which are only hashed. They
// are sealed with AES-256-GCM under a key kept OUTSIDE the database, in
// Config.KeyFile (created with mode 0600 on first use, next to the
// database by default): a copy of the database alone (a backup, a
// replica, a leaked file) does not reveal them. Without a key file (tests)
// the key lives in memory for the process.

type sealKey struct {
	once sync.Once
	aead cipher.AEAD
	err  error
}

func (a *Kernel) sealer() (cipher.AEAD, error) {
	a.seal.once.Do(func() {
		key, err := a.loadKey()
		if err != nil {
			a.seal.err = err
			return
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			a.seal.err = err
			return
		}
		a.seal.aead, a.seal.err = cipher.NewGCM(block)
	})
	return a.seal.aead, a.seal.err
}

// loadKey reads the 32-byte key file (hex), creating it when missing.
func (a *Kernel) loadKey() ([]byte, error) {
	key := make([]byte, 32)
	if a.Cfg.KeyFile == "" {
		rand.Read(key)
		return key, nil
	}
	b, err := os.ReadFile(a.Cfg.KeyFile)
	if errors.Is(err, os.ErrNotExist) {
		rand.Read(key)
		f, err := os.OpenFile(a.Cfg.KeyFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, fmt.Errorf("create key file: %w", err)
		}
		defer f.Close()
		if _, err := f.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
			return nil, err
		}
		a.Log.Info("created the secrets key file; back it up with the database", "path", a.Cfg.KeyFile)
		return key, f.Sync()
	}
	if err != nil {
		return nil, fmt.Errorf("read key file: %w", err)
	}
	key, err = hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("key file %s: want 64 hex digits", a.Cfg.KeyFile)
	}
	return key, nil
}

// Seal encrypts a secret for storage.
func (a *Kernel) Seal(plain string) (string, error) {
	aead, err := a.sealer()
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	return "v1:" + base64.RawStdEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte(plain), nil)), nil
}

// Unseal decrypts what Seal stored.
func (a *Kernel) Unseal(sealed string) (string, error) {
	aead, err := a.sealer()
	if err != nil {
		return "", err
	}
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(sealed, "v1:"))
	if err != nil || len(raw) < aead.NonceSize() {
		return "", errors.New("sealed secret is damaged")
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], nil)
	if err != nil {
		return "", errors.New("sealed secret does not open with this key file")
	}
	return string(plain), nil
}
