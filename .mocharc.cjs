// `mocha` alone (and `npm test`): every test, the unit tests first. See scripts/test-suites.cjs.
module.exports = require('./scripts/test-suites.cjs').allConfig();
