#pragma once
// The three patch formats of the Kubernetes API, applied to JSON objects as the API server does.

#include <expected>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace respool::sandbox::patch {

using Json = nlohmann::json;

struct PatchError {
  int code = 422;       // 400 for a malformed patch document; 422 when it cannot apply
                        // (a JSON-patch "test" that fails, a path that does not exist); 413 for
                        // a JSON patch of more than 10000 operations; 500 for the strategic
                        // merge patch errors the API server does not classify (a list item
                        // without its merge key, an unknown $patch directive)
  std::string message;  // as the API server words it (Status.message)
  std::string detail;   // why, when the message does not say (the API server answers a JSON
                        // patch that does not apply with a generic 422 message only)
};

// RFC 7386 MergePatch(target, patch) on any JSON values, exactly as the RFC defines it (a patch
// that is not an object replaces the target; null members delete).
Json apply_merge_patch(const Json& target, const Json& patch);

// RFC 7386 JSON merge patch (application/merge-patch+json) as the API server takes it: the patch
// must be a JSON object (null: 400 "Invalid JSON Patch"; an array or a scalar: 400 "error
// decoding patch: ...").
std::expected<Json, PatchError> merge_patch(const Json& target, const Json& patch);

// RFC 6902 JSON patch (application/json-patch+json): add, remove, replace, move, copy, test,
// with RFC 6901 pointers ("~0", "~1", "-" for the end of an array). Not an array of objects:
// 400 with Go's decoding message. An operation that cannot apply: 422 "the server rejected our
// request due to an error in our request" (all the API server says), the reason in `detail`
// ("testing value /a failed: test failed", "... doc is missing path ..."). Pointers and array
// indices are RFC-strict: unlike the API server's library, replace/test/remove of a missing
// member fail and negative indices are not accepted.
std::expected<Json, PatchError> json_patch(const Json& target, const Json& operations);

// Strategic merge patch (application/strategic-merge-patch+json) for the built-in kind `kind`
// (core/v1 "Node", "Pod", ...; apps/v1 "DaemonSet", ...): lists with a merge key (containers by
// name, conditions by type, ...) are merged by that key; other lists are replaced (Node
// spec.taints has no patch strategy in k8s.io/api, so `kubectl taint` sends the whole list); the
// directives $patch (replace, delete; "merge" is refused as the API server refuses it),
// $retainKeys, $deleteFromPrimitiveList/<field> and $setElementOrder/<field> are honoured, as
// kubectl sends them for labels, annotations, taints, unschedulable and apply. The order of a
// merged list follows apimachinery: $setElementOrder, then the patch, then the live object.
//
// The patch tags come from a table of the sandbox's kinds (patch_schema.cpp). A field missing
// from the table, and every field of an unknown kind, behaves as an untagged field: objects
// merge recursively, lists are replaced (the API server would reject a field its type lacks).
// Values the patch adds where the object has nothing are the patch applied to nothing: nulls
// and directives do not end up in the object.
std::expected<Json, PatchError> strategic_merge_patch(const Json& target, const Json& patch,
                                                      std::string_view kind);

}  // namespace respool::sandbox::patch
