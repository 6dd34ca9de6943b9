/// A reader's last fill, for sizing its next one (``FillCoordinator``): where the reader stood when the fill was made
/// and how long it was asked to be. A reader that has read half that length since reads on.
struct ReadRun {
    let origin: Int64
    let window: Int64
}
