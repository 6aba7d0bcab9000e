import Foundation

extension Style {
    /// The built-in style, used when pipeline.json names none. It is a style
    /// document in the spec's own format, so a user can copy it as a starting point.
    public static let defaultJSON = """
    {
      "id": "venuetiles-default",
      "name": "VenueTiles default",
      "version": "1.1",
      "styles": [
        { "layer-id": "background", "hidden": true },
        { "layer-id": "venue", "hidden": true },
        { "layer-id": "building_outlines_[BUILDING]", "hidden": true },
        { "layer-id": "floor_outlines_[FLOOR]", "fill-color": "#F3F1EC", "outline-color": "#9C9587" },
        { "layer-id": "floor_elevators_[FLOOR]", "fill-color": "#C8D4E6", "outline-color": "#8496B3" },
        { "layer-id": "floor_stairwells_[FLOOR]", "fill-color": "#D8CFE6", "outline-color": "#9A8BB8" },
        { "layer-id": "floor_restrooms_[FLOOR]", "fill-color": "#CBE2F2", "outline-color": "#86ABCB" },
        { "layer-id": "floor_walkways_[FLOOR]", "fill-color": "#FFFFFF", "outline-color": "#D8D3C9" },
        { "layer-id": "floor_fixtures_[FLOOR]", "fill-color": "#DDD8CE", "outline-color": "#AFA799" },
        { "layer-id": "floor_non_public_units_[FLOOR]", "fill-color": "#E2DFD9", "outline-color": "#C0BAB0" },
        { "layer-id": "floor_open_to_below_units_[FLOOR]", "fill-color": "#F7F6F2", "outline-color": "#B5AE9F" },
        { "layer-id": "floor_other_rooms_[FLOOR]", "fill-color": "#ECE6DA", "outline-color": "#C4B9A5" },
        { "layer-id": "floor_rooms_[FLOOR]", "fill-color": "#FBE5C4", "outline-color": "#D2AE7C" },
        { "layer-id": "floor_water_[FLOOR]", "fill-color": "#AAD3EF", "outline-color": "#78AED6" },
        { "layer-id": "floor_walls_[FLOOR]", "fill-color": "#B9B2A5", "line-color": "#8C8577" },
        { "layer-id": "floor_openings_[FLOOR]", "line-color": "#FFFFFF" },
        { "layer-id": "floor_amenities_[FLOOR]", "fill-color": "#3E7CC4", "outline-color": "#FFFFFF" },
        { "layer-id": "floor_labels_[FLOOR]", "font-name": "DejaVu Sans", "font-size": 12,
          "font-color": "#3B3A36", "font-stroke-color": "#FFFFFF", "font-stroke-width": 2,
          "max-text-width": 96 }
      ]
    }
    """

    public static let builtIn: Style = {
        do { return try Style.parse(Data(defaultJSON.utf8), source: "built-in default style") } catch {
            preconditionFailure("the built-in default style does not parse: \(error)")
        }
    }()
}
