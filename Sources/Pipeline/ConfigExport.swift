// pipeline.json is read by its own module (Config), so that the fuzz target of
// the config builds without the pipeline (Cairo, Crypto, archives); the
// pipeline's API takes and returns its types, so its users get them with it.
@_exported import Config
