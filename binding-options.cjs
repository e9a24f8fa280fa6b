// How the native addon is named and which Node-API versions it is built for: read by the loader
// (src/core/binding.ts) and by `pkg-prebuilds-verify` at install. Node-API versions have one
// owner, package.json's `binary.napi_versions`, which cmake-js builds with.
module.exports = {
  name: 'rxcuda',
  napi_versions: require('./package.json').binary.napi_versions,
};
