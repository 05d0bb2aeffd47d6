// `npm run test:integration`: the tests that start real programs. See scripts/test-suites.cjs.
module.exports = require('./scripts/test-suites.cjs').integrationConfig();
