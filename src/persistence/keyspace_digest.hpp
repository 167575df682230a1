#pragma once
// DEBUG DIGEST and DEBUG DIGEST-VALUE over a keyspace (digest.hpp says how
// a digest is built). A key's digest mixes its db, name, type, its value's
// digest (the codec's) and its deadline; the dataset's is the xor of them.

#include <string>

#include "persistence/digest.hpp"
#include "store/keyspace.hpp"

namespace lawnkv::persistence {

// The digest of e's value alone (DEBUG DIGEST-VALUE).
Digest value_digest(const store::Entry& e);
// The digest of every key of ks (DEBUG DIGEST): 40 zeros when ks is empty.
Digest keyspace_digest(const store::Keyspace& ks);

}  // namespace lawnkv::persistence
