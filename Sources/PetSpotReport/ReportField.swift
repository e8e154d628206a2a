/// Every input of the report forms, for attaching errors to the right field.
public enum ReportField: String, Sendable, Hashable, Codable, CaseIterable {
    case photo
    case date
    case species
    case race
    case gender
    case age
    case latitude
    case longitude
    case description
    case chipNumber
    case petName
    case phone
    case email
    case reward
    case caregiverPhone
    case address
}
