# shellcheck shell=bash
# gen_test_certs DIR: a throwaway PKI for the TLS tests, made with the
# openssl CLI (as Redis's utils/gen-test-certs.sh does for its own tests):
#   ca.crt ca.key               the CA the server trusts
#   server.crt server.key       the server's certificate (CN lawnkv-server,
#                               SAN localhost and 127.0.0.1), signed by ca
#   server2.crt server2.key     a second one (CN lawnkv-server-2), for rotation
#   client.crt client.key       a client certificate signed by ca
#   other-ca.crt                another CA, and stranger.crt stranger.key,
#   stranger.crt stranger.key   a client certificate it signed (a wrong CA)
# EC P-256 keys: quick to make. Valid for one day.
gen_test_certs() {
  local d=$1
  mkdir -p "$d"
  local ossl=(openssl)
  # ca NAME CN: a self-signed CA
  ca() {
    "${ossl[@]}" ecparam -name prime256v1 -genkey -noout -out "$d/$1.key" 2>/dev/null
    "${ossl[@]}" req -x509 -new -key "$d/$1.key" -sha256 -days 1 -subj "/O=lawnkv test/CN=$2" \
      -out "$d/$1.crt" 2>/dev/null
  }
  # leaf NAME CN CA EXT: a certificate for NAME signed by CA
  leaf() {
    "${ossl[@]}" ecparam -name prime256v1 -genkey -noout -out "$d/$1.key" 2>/dev/null
    "${ossl[@]}" req -new -key "$d/$1.key" -subj "/O=lawnkv test/CN=$2" -out "$d/$1.csr" 2>/dev/null
    printf '%b' "$4" >"$d/$1.ext"
    "${ossl[@]}" x509 -req -in "$d/$1.csr" -CA "$d/$3.crt" -CAkey "$d/$3.key" -CAcreateserial -days 1 \
      -sha256 -extfile "$d/$1.ext" -out "$d/$1.crt" 2>/dev/null
  }
  local server_ext='keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n'
  local client_ext='keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n'
  ca ca "lawnkv test CA"
  leaf server lawnkv-server ca "$server_ext"
  leaf server2 lawnkv-server-2 ca "$server_ext"
  leaf client lawnkv-client ca "$client_ext"
  ca other-ca "another CA"
  leaf stranger stranger other-ca "$client_ext"
  [ -s "$d/server.crt" ] && [ -s "$d/client.crt" ] && [ -s "$d/stranger.crt" ]
}
