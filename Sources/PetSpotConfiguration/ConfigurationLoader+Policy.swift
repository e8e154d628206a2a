import PetSpotLocation
import PetSpotPolicy

/// `[policy]` of the daemon's file: the default, the prompt, the rules, the agent and admin principals.
extension DaemonTableParser {
    mutating func policy(_ table: TableReader) -> Policy {
        var table = table
        var policy = Policy()
        if let status = table.choice("default", of: AuthorizationStatus.self, errors: &errors) {
            policy.defaultStatus = status
        }
        if let prompt = table.choice("prompt", of: PromptMode.self, errors: &errors) { policy.prompt = prompt }
        if let timeout = table.duration(
            "prompt_timeout", maximum: ConfigurationLoader.maximumDurationSeconds, errors: &errors)
        {
            policy.promptTimeout = timeout
        }
        if let metres = table.number(
            "reduced_accuracy_m", requirement: "a finite number of metres greater than 0", errors: &errors, { $0 > 0 })
        {
            policy.reducedAccuracyMeters = metres
        }
        if let interval = table.duration(
            "reduced_update_interval", maximum: ConfigurationLoader.maximumDurationSeconds, errors: &errors)
        {
            policy.reducedUpdateInterval = interval
        }
        if let agent = table.table("agent", errors: &errors) { policy.agent = principals(agent) }
        if let admin = table.table("admin", errors: &errors) { policy.admin = principals(admin) }
        if let rules = table.tables("rules", errors: &errors) {
            policy.rules = rules.compactMap { rule($0) }
        }
        table.reportUnknownKeys(errors: &errors)
        return policy
    }

    mutating func principals(_ table: TableReader) -> PrincipalSet {
        var table = table
        var set = PrincipalSet(users: ["root"], groups: [])
        if let users = table.strings("users", errors: &errors) { set.users = users }
        if let groups = table.strings("groups", errors: &errors) { set.groups = groups }
        table.reportUnknownKeys(errors: &errors)
        return set
    }

    mutating func rule(_ table: TableReader) -> PolicyRule? {
        var table = table
        let errorCount = errors.count
        let user = table.nonEmptyString("user", errors: &errors)
        let uid = table.integer("uid", in: 0...Int(UInt32.max), errors: &errors)
        let group = table.nonEmptyString("group", errors: &errors)
        let gid = table.integer("gid", in: 0...Int(UInt32.max), errors: &errors)
        let unit = table.nonEmptyString("unit", errors: &errors)
        if let unit, unit.contains("/") {
            table.fail(
                "unit", "matches system units only (SPEC §3): a name such as \"kiosk.service\", found \"\(unit)\"",
                into: &errors)
        }
        var executable = table.nonEmptyString("executable", errors: &errors)
        if let path = executable, !path.hasPrefix("/") {
            table.fail("executable", "must be an absolute path, found \"\(path)\"", into: &errors)
        } else if let path = executable {
            // The kernel names a client's executable by its real path
            // (/usr/bin/x on a merged-/usr system, never /bin/x): compare like with like.
            executable = Self.canonicalPath(path)
        }
        let hasMatcher = ["user", "uid", "group", "gid", "unit", "executable"].contains { table.has($0) }
        if !hasMatcher {
            errors.append(
                ConfigurationError(
                    key: table.path, message: "needs at least one of user, uid, group, gid, unit, executable"))
        }
        let status = table.choice("status", of: AuthorizationStatus.self, errors: &errors)
        if !table.has("status") {
            table.fail("status", "is required in every [[policy.rules]] entry", into: &errors)
        }
        let accuracy = table.choice("accuracy", of: AccuracyAuthorization.self, errors: &errors)
        if table.has("accuracy"), let status, status != .authorized {
            table.fail(
                "accuracy", "is only allowed with status \"authorized\", found status \"\(status.rawValue)\"",
                into: &errors)
        }
        table.reportUnknownKeys(errors: &errors)
        guard errors.count == errorCount, let status else { return nil }
        return PolicyRule(
            user: user, uid: uid.map { UInt32($0) }, group: group, gid: gid.map { UInt32($0) }, unit: unit,
            executable: executable, status: status, accuracy: accuracy)
    }
}
