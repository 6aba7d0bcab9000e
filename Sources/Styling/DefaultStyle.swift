import Foundation

extension Style {
    /// The built-in style, used when pipeline.json names none. It is the file
    /// `Sources/Styling/Resources/default-style.json`, in the spec's own format,
    /// compiled into the binary; a user can copy it as a starting point.
    public static let defaultJSON = String(decoding: PackageResources.default_style_json, as: UTF8.self)

    public static let builtIn: Style = {
        do { return try Style.parse(Data(defaultJSON.utf8), source: "built-in default style") } catch {
            preconditionFailure("the built-in default style does not parse: \(error)")
        }
    }()
}
